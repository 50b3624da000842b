/* Which CPU's code an object of sluicec -c --mcpu=A,[B,]BASE runs here:
 * calls the ifunc resolver of the exported function FN (-DFN=name) and
 * names the copy it returns: FN.A, FN.B or FN.BASE (-DA=x86_64_v4
 * -DB=x86_64_v3 -DBASE=x86_64; B is optional). The expected copy comes
 * from the C compiler's own CPU test, __builtin_cpu_supports of the ISA
 * levels -DA_LEVEL=x86-64-v4 and -DB_LEVEL=x86-64-v3 (GCC 12, clang 16 and
 * later). Prints "chose <cpu>, expected <cpu>"; exits 1 when they differ. */
#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

extern void *resolve(void) __asm__(STR(FN) ".resolver");
extern void copyA(void) __asm__(STR(FN) "." STR(A));
extern void copyBase(void) __asm__(STR(FN) "." STR(BASE));
#ifdef B
extern void copyB(void) __asm__(STR(FN) "." STR(B));
#endif

int main(void) {
  void *chosen = resolve();
  const char *name = chosen == (void *)copyA      ? STR(A)
                     : chosen == (void *)copyBase ? STR(BASE)
#ifdef B
                     : chosen == (void *)copyB ? STR(B)
#endif
                                                  : "none of the copies";
  __builtin_cpu_init();
  const char *expected = __builtin_cpu_supports(STR(A_LEVEL)) ? STR(A)
#ifdef B
                         : __builtin_cpu_supports(STR(B_LEVEL)) ? STR(B)
#endif
                                                                : STR(BASE);
  printf("chose %s, expected %s\n", name, expected);
  return strcmp(name, expected) != 0;
}
