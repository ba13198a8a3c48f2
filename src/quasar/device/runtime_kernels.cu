// NVRTC and the runtime's libraries (cudaLibraryLoadData) behind runtime_kernels.hpp.
#include <nvrtc.h>

#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/runtime_kernels.hpp"

namespace quasar::device {

namespace {

void nvrtc_check(nvrtcResult r, const char* call, const std::string& what) {
  if (r != NVRTC_SUCCESS) throw Error("NVRTC " + std::string(call) + " for " + what + ": " + nvrtcGetErrorString(r));
}

// Destroys the program on every path out.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

}  // namespace

std::string compile_cubin(const std::string& source, const std::vector<SourceHeader>& headers, int arch,
                          const std::string& what) {
  std::vector<const char*> texts, names;
  for (const SourceHeader& h : headers) {
    texts.push_back(h.text.c_str());
    names.push_back(h.name.c_str());
  }
  Program prog;
  nvrtc_check(nvrtcCreateProgram(&prog.p, source.c_str(), what.c_str(), static_cast<int>(headers.size()),
                                 texts.data(), names.data()),
              "nvrtcCreateProgram", what);
  const std::string gpu = "--gpu-architecture=sm_" + std::to_string(arch);
  const char* options[] = {gpu.c_str(), "--std=c++20", "-DQUASAR_RUNTIME_KERNEL=1"};
  const nvrtcResult compiled = nvrtcCompileProgram(prog.p, 3, options);
  if (compiled != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog.p, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog.p, log.data());
    throw Error("NVRTC could not compile " + what + ":\n" + log);
  }
  std::size_t size = 0;
  nvrtc_check(nvrtcGetCUBINSize(prog.p, &size), "nvrtcGetCUBINSize", what);
  std::string cubin(size, '\0');
  nvrtc_check(nvrtcGetCUBIN(prog.p, cubin.data()), "nvrtcGetCUBIN", what);
  return cubin;
}

struct RuntimeModule::Impl {
  cudaLibrary_t library = nullptr;
  std::string what;
};

namespace {

int current_arch() {
  int device = 0, major = 0, minor = 0;
  QUASAR_CUDA_CHECK(cudaGetDevice(&device));
  QUASAR_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  QUASAR_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return 10 * major + minor;
}

// The cubins compiled so far in this process: the same source again (another evaluator of the same
// model) loads the cubin compiled before.
std::string cached_cubin(const std::string& source, const std::vector<SourceHeader>& headers, int arch,
                         const std::string& what) {
  static std::mutex mutex;
  static std::map<std::string, std::string> compiled;
  const std::string key = std::to_string(arch) + '\n' + source;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = compiled.find(key); it != compiled.end()) return it->second;
  }
  std::string cubin = compile_cubin(source, headers, arch, what);
  const std::lock_guard<std::mutex> lock(mutex);
  return compiled.emplace(key, std::move(cubin)).first->second;
}

}  // namespace

RuntimeModule::RuntimeModule(const std::string& cubin, const std::string& what, int) : impl_(std::make_unique<Impl>()) {
  QUASAR_CUDA_CHECK(cudaLibraryLoadData(&impl_->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  impl_->what = what;
}

RuntimeModule::RuntimeModule(const std::string& source, const std::vector<SourceHeader>& headers,
                             const std::string& what)
    : RuntimeModule(cached_cubin(source, headers, current_arch(), what), what, 0) {}

std::vector<std::unique_ptr<RuntimeModule>> RuntimeModule::compile_all(const std::vector<std::string>& sources,
                                                                       const std::vector<SourceHeader>& headers,
                                                                       const std::string& what) {
  const int arch = current_arch();
  std::vector<std::future<std::string>> cubins;
  for (std::size_t i = 0; i < sources.size(); ++i)
    cubins.push_back(std::async(std::launch::async, [&, i] {
      return cached_cubin(sources[i], headers, arch, what + " " + std::to_string(i));
    }));
  std::vector<std::unique_ptr<RuntimeModule>> modules;
  for (std::size_t i = 0; i < sources.size(); ++i)
    modules.emplace_back(new RuntimeModule(cubins[i].get(), what + " " + std::to_string(i), 0));
  return modules;
}

RuntimeModule::~RuntimeModule() {
  if (impl_ && impl_->library) cudaLibraryUnload(impl_->library);
}

const void* RuntimeModule::kernel(const std::string& name) const {
  cudaKernel_t k = nullptr;
  if (cudaLibraryGetKernel(&k, impl_->library, name.c_str()) != cudaSuccess) {
    cudaGetLastError();
    throw Error("no kernel " + name + " in the code compiled for " + impl_->what);
  }
  return reinterpret_cast<const void*>(k);
}

}  // namespace quasar::device
