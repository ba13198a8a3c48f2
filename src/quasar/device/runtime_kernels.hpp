#pragma once
// Kernels compiled while the program runs (NVRTC): code specialised to the numbers of one model, with
// its parameters as constants, where a kernel that reads them from tables would spend most of its
// instructions on the reading. The source is CUDA C++ that includes only the headers given with it.
#include <memory>
#include <string>
#include <vector>

namespace quasar::device {

// A header the source may include, by the name it includes it with.
struct SourceHeader {
  std::string name;
  std::string text;
};

// Compiles `source` into a cubin for the GPU architecture `arch` (90: sm_90). Needs no GPU. Errors
// carry NVRTC's log and `what` (what the source is for).
std::string compile_cubin(const std::string& source, const std::vector<SourceHeader>& headers, int arch,
                          const std::string& what);

// The source compiled for the current device and loaded: its extern "C" kernels by name, as the
// runtime launches them (cudaLaunchKernel, cudaFuncSetAttribute take the pointer).
class RuntimeModule {
 public:
  RuntimeModule(const std::string& source, const std::vector<SourceHeader>& headers, const std::string& what);
  // Several sources at once, compiled in parallel threads (NVRTC is thread-safe; a second or more
  // each), then loaded: module i is sources[i]'s; `what` names them with their index.
  static std::vector<std::unique_ptr<RuntimeModule>> compile_all(const std::vector<std::string>& sources,
                                                                  const std::vector<SourceHeader>& headers,
                                                                  const std::string& what);
  ~RuntimeModule();
  RuntimeModule(const RuntimeModule&) = delete;
  RuntimeModule& operator=(const RuntimeModule&) = delete;
  const void* kernel(const std::string& name) const;

 private:
  struct Impl;
  RuntimeModule(const std::string& cubin, const std::string& what, int);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::device
