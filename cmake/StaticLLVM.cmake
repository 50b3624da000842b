# The link mode of sluicec (docs/build.md, "Link mode").
#
# Every Sluice library links MLIR and LLVM through SLUICE_MLIR and
# SLUICE_LLVM (sluice_add_library maps its LINK names MLIR and LLVM to
# them): Debian's shared libMLIR.so / libLLVM.so, or, in a binary whose
# SLUICE_STATIC_LLVM property is true, LLVM's and MLIR's static archives
# instead. The property is read on the binary being linked (in usage
# requirements $<TARGET_PROPERTY:prop> names the consumer), so one build
# of the libraries serves both modes and a binary gets one copy of LLVM,
# never both.
#
# SLUICE_STATIC_SLUICEC=ON (the default) sets the property on sluicec: it
# then starts in a third of the time and half the memory (no loading and
# relocating of the two shared libraries, 430,000 relative relocations, at
# every start; bench/RESULTS.md, "Start-up, output and the commit"). The
# link needs lld (2-6 s and 630 MB over 550 archives); without ld.lld the
# build falls back to the shared libraries, with a message.
option(SLUICE_STATIC_SLUICEC
       "Link sluicec against LLVM's and MLIR's static archives (needs lld)" ON)

find_program(SLUICE_LLD ld.lld)
if(SLUICE_STATIC_SLUICEC AND NOT SLUICE_LLD)
  message(STATUS "sluicec links the shared libLLVM/libMLIR: no ld.lld for "
                 "SLUICE_STATIC_SLUICEC (scripts/install-deps.sh installs lld)")
  set(SLUICE_STATIC_SLUICEC OFF)
endif()
if(SLUICE_STATIC_SLUICEC)
  file(GLOB SLUICE_LLVM_ARCHIVES "${LLVM_LIBRARY_DIR}/libMLIR*.a"
       "${LLVM_LIBRARY_DIR}/libLLVM*.a")
  # Not libraries of a compiler: the C API, TableGen, test support.
  list(FILTER SLUICE_LLVM_ARCHIVES EXCLUDE REGEX
       "/lib(MLIR|LLVM)[^/]*(CAPI|TableGen|MlirOptMain|Testing|gtest)[^/]*\\.a$")
  add_library(SluiceStaticLLVM INTERFACE)
  # One group: lld resolves the archives' mutual references in any order
  # and pulls only the members something needs.
  target_link_libraries(SluiceStaticLLVM INTERFACE -Wl,--start-group
                        ${SLUICE_LLVM_ARCHIVES} -Wl,--end-group z zstd tinfo
                        pthread rt dl m)
  # -no-pie: a position-dependent executable has its 132,000 relative
  # relocations resolved by the linker, not by the loader at every start
  # (`sluicec --version` 27 -> 21 ms, 1,160 -> 820 page faults); libstdc++
  # and libgcc linked in, so the loader binds none of their symbols either
  # (22.5-24.0 -> 18.1-19.4 ms of CPU; docs/build.md).
  target_link_options(SluiceStaticLLVM INTERFACE -fuse-ld=lld
                      LINKER:--gc-sections -no-pie -static-libstdc++
                      -static-libgcc)
  set(SLUICE_STATIC "$<BOOL:$<TARGET_PROPERTY:SLUICE_STATIC_LLVM>>")
  set(SLUICE_MLIR "$<IF:${SLUICE_STATIC},SluiceStaticLLVM,MLIR>")
  set(SLUICE_LLVM "$<IF:${SLUICE_STATIC},SluiceStaticLLVM,LLVM>")
else()
  set(SLUICE_MLIR MLIR)
  set(SLUICE_LLVM LLVM)
endif()
