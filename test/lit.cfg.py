# -*- Python -*-
# lit configuration for the Sluice test suite.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SLUICE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".sluice", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Unit", "corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sluice_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%src_root", config.sluice_src_root))
config.substitutions.append(("%sluice_obj_root", config.sluice_obj_root))
config.substitutions.append(("%examples", os.path.join(config.sluice_src_root, "examples")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Our tools first, then LLVM's FileCheck/not/count.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.sluice_tools_dir, append_path=True)

tool_dirs = [config.sluice_tools_dir, config.llvm_tools_dir]
tools = ["sluicec", "sluice-opt", "sluice-import-topo"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.ptxas_executable and os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_executable))
if config.dot_executable and os.path.exists(config.dot_executable):
    config.available_features.add("dot")
# The build's libdevice (CMake SLUICE_LIBDEVICE), sluicec's default
# --libdevice: the GPU code of the math built-ins links it.
if config.libdevice and os.path.exists(config.libdevice):
    config.available_features.add("libdevice")

# Walk code generation (test/WalkCodegen): C programs built against
# libsluicert and the headers sluicec -c writes.
import shutil
config.substitutions.append(("%sluice_include", os.path.join(config.sluice_src_root, "runtime", "include")))
config.substitutions.append(("%sluice_libdir", os.path.join(config.sluice_obj_root, "lib")))
if shutil.which("cc"):
    config.available_features.add("cc")

# Host objects for a CPU (sluicec -c --mcpu, test/Align/compile-mcpu.test):
# x86_64 when LLVM's x86 target compiles for this machine, and
# host-x86-64-v3 when this CPU runs x86-64-v3 code (AVX2, FMA, BMI1/2,
# F16C, LZCNT, MOVBE), so that an object built for it can be run.
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                          if line.startswith("flags")), [])
        if {"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "abm",
                "movbe"} <= set(flags):
            config.available_features.add("host-x86-64-v3")
    except OSError:
        pass

# A CUDA driver with at least one device (GPU runs of test/WalkCodegen).
def _has_cuda_device():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except (OSError, AttributeError):
        return False
if _has_cuda_device():
    config.available_features.add("cuda")

# The real graphs next to the repository (../shared/data, see its README):
# tests that read them say REQUIRES: shared-data.
if os.path.isdir(config.shared_data_dir):
    config.available_features.add("shared-data")
    config.substitutions.append(("%shared_data", config.shared_data_dir))

# NumPy in the interpreter that runs lit (%python): tests that write .npy
# and .npz inputs with numpy say REQUIRES: numpy.
try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass
