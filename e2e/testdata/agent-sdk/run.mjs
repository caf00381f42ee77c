// Runs one Claude Agent SDK query for the e2e tests and prints every SDK
// message as a JSON line on stdout. Everything comes from the environment
// the Go test sets:
//
//   SDK_MODULE   the SDK's sdk.mjs (scripts/install-agent-sdk prints it)
//   SDK_ROUTE    "settings": the project's .claude/settings.json hooks
//                (settingSources: ['project']); "callback": no settings,
//                an in-process Stop callback that runs SDK_STOP_HOOK
//   SDK_STOP_HOOK  the command the callback runs (split on spaces), the
//                hook input as JSON on its stdin; its JSON answer, or {}
//                when it printed nothing, is the callback's answer
//   SDK_PROMPT   the prompt
//
// The query runs in the current directory (the project), with the
// environment it was given (ANTHROPIC_BASE_URL: the Messages stand-in).
import { spawn } from 'node:child_process';

const { query } = await import(process.env.SDK_MODULE);

// runStopHook hands input to the stop hook as Claude Code would and
// returns its answer. A hook that fails (exit 1, one stderr line) lets the
// agent stop, as a failing command hook does.
function runStopHook(input, signal) {
  const [cmd, ...args] = process.env.SDK_STOP_HOOK.split(' ');
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: input.cwd, stdio: ['pipe', 'pipe', 'inherit'], signal });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', (err) => {
      process.stderr.write(`stop hook: ${err.message}\n`);
      resolve({});
    });
    child.on('close', (code) => {
      if (code !== 0 || out.trim() === '') {
        resolve({});
        return;
      }
      resolve(JSON.parse(out));
    });
    child.stdin.end(JSON.stringify(input));
  });
}

const options = {
  cwd: process.cwd(),
  env: { ...process.env },
  permissionMode: 'acceptEdits',
  stderr: (data) => process.stderr.write(data),
};
if (process.env.SDK_ROUTE === 'settings') {
  options.settingSources = ['project'];
} else {
  options.settingSources = [];
  options.hooks = { Stop: [{ hooks: [(input, _id, { signal }) => runStopHook(input, signal)] }] };
}

for await (const message of query({ prompt: process.env.SDK_PROMPT, options })) {
  process.stdout.write(JSON.stringify(message) + '\n');
}
