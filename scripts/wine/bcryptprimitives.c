/*
 * A stand-in for Windows' bcryptprimitives.dll, for running donegate's
 * Windows binaries and tests under Wine 8 (Debian's wine64), which has no
 * such DLL. The Go runtime (1.22 and later) loads it at start for
 * ProcessPrng, its source of random bytes, and dies without it. This one
 * answers ProcessPrng with advapi32's RtlGenRandom (SystemFunction036),
 * which Wine has. Built by scripts/install-wine into the test prefix only:
 * nothing donegate ships uses it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
