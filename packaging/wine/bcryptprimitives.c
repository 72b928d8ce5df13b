/* A stand-in for Windows' bcryptprimitives.dll, for running Windows builds under Wine 8 only;
 * never shipped. Go (1.22 and later) takes its random numbers from ProcessPrng, which every
 * Windows 10+ has and Wine 8 lacks; this one fills the buffer from RtlGenRandom
 * (SystemFunction036 in advapi32). packaging/wine.sh builds it with Debian's mingw-w64. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
