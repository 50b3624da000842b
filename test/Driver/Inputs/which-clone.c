/* Which CPU's code an object of sluicec -c --mcpu=x86-64-v3,x86-64 runs
 * here: calls the ifunc resolver of the exported function FN (-DFN=name)
 * and names the copy it returns, FN.x86_64_v3 or FN.x86_64. The expected
 * copy comes from the C compiler's own CPU test,
 * __builtin_cpu_supports("x86-64-v3") (GCC 12, clang 16 and later).
 * Prints "chose <cpu>, expected <cpu>"; exits 1 when they differ. */
#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

extern void *resolve(void) __asm__(STR(FN) ".resolver");
extern void v3(void) __asm__(STR(FN) ".x86_64_v3");
extern void base(void) __asm__(STR(FN) ".x86_64");

int main(void) {
  void *chosen = resolve();
  const char *name = chosen == (void *)v3     ? "x86_64_v3"
                     : chosen == (void *)base ? "x86_64"
                                              : "none of the copies";
  __builtin_cpu_init();
  const char *expected =
      __builtin_cpu_supports("x86-64-v3") ? "x86_64_v3" : "x86_64";
  printf("chose %s, expected %s\n", name, expected);
  return strcmp(name, expected) != 0;
}
