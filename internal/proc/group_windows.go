package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// shellCommand runs s as cmd /d /s /c "s", as Node.js and npm run a
// script on Windows: cmd.exe is on every Windows machine (Git Bash, which
// Claude Code runs hooks with, is not), runs .bat and .cmd files such as
// npm.cmd, and /d leaves out the AutoRun commands of the registry, /s
// takes s as it is between the outer quotes. %ComSpec% names cmd.exe.
func shellCommand(s string) *exec.Cmd {
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	c := exec.Command(comspec)
	c.SysProcAttr = &syscall.SysProcAttr{CmdLine: syscall.EscapeArg(comspec) + ` /d /s /c "` + s + `"`}
	return c
}

// ownGroup makes c start suspended, in a process group of its own and
// without a console window (no window flashes up at each check): its
// Job Object is made and it is put in it before it runs a single
// instruction (joinGroup), so that nothing it starts escapes the job.
func ownGroup(c *exec.Cmd) {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.HideWindow = true
	c.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW
}

// group is a started command's Job Object: every process the command
// starts is in it, and ends with it.
type group struct {
	job  windows.Handle // 0: no job could be made; the command alone is killed
	proc *os.Process
}

// joinGroup puts c, started suspended (ownGroup), in a new Job Object that
// ends every process in it when it is closed, at a lower CPU priority
// when background, and then lets c run. Where no job can be made, c runs
// alone, and only c is killed at the end.
func joinGroup(c *exec.Cmd, background bool) *group {
	g := &group{proc: c.Process}
	job, err := newJob(background)
	if err == nil {
		err = assign(job, c.Process.Pid)
		if err != nil {
			windows.CloseHandle(job)
		} else {
			g.job = job
		}
	}
	if err := resume(c.Process.Pid); err != nil {
		// It never ran: end it, so that Wait returns.
		g.kill()
	}
	return g
}

// newJob makes a Job Object that ends its processes when its last handle
// is closed (the hook's, whenever the hook exits).
func newJob(background bool) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if background {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PRIORITY_CLASS
		info.BasicLimitInformation.PriorityClass = windows.BELOW_NORMAL_PRIORITY_CLASS
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("job object limits: %w", err)
	}
	return job, nil
}

// assign puts process pid in job.
func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resume lets the suspended process pid run: its one thread, found among
// the system's threads (os/exec keeps no handle to it).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			continue
		}
		if _, err := windows.ResumeThread(th); err == nil {
			resumed++
		}
		windows.CloseHandle(th)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d: no thread to resume", pid)
	}
	return nil
}

// stop ends the group. Windows has no SIGTERM to ask with: a console
// program can only be sent Ctrl+Break on a console it shares with the
// hook, and checks run without one. The job ends at once.
func (g *group) stop() { g.kill() }

// kill ends every process of the job (or the command, without one).
func (g *group) kill() {
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
		return
	}
	_ = g.proc.Kill()
}

// close lets go of the job, which ends what is left in it.
func (g *group) close() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// signalOf is "": no signal ends a process on Windows.
func signalOf(*os.ProcessState) string { return "" }

// OwnGroup makes c, a short command run with exec.CommandContext, run
// without a console window. Started with StartOwn, it runs in a Job
// Object of its own.
func OwnGroup(c *exec.Cmd) {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.HideWindow = true
	c.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW
}

// StartOwn starts c (made with exec.CommandContext, OwnGroup's) in a Job
// Object of its own, as Run starts a command: its context's end and done
// end every process c started (git status runs a git in each submodule,
// and a git.cmd on PATH runs cmd.exe), not c alone. done must be called
// once c has been waited for.
func StartOwn(c *exec.Cmd) (done func(), err error) {
	OwnGroup(c)
	c.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	var started atomic.Pointer[group]
	c.Cancel = func() error {
		if g := started.Load(); g != nil {
			g.kill()
			return nil
		}
		return c.Process.Kill() // still suspended: joinGroup has not run
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	g := joinGroup(c, false)
	started.Store(g)
	return g.close, nil
}

// ShellNotFound is the exit code with which the shell says it found no
// such command (cmd.exe: 9009, "is not recognized as an internal or
// external command").
const ShellNotFound = 9009

// adopt does nothing: a command's processes are in its Job Object, which
// nothing it starts can leave (see orphans_linux.go for why Linux needs
// more).
func adopt() (release func()) { return func() {} }
