#pragma once
#include <stdexcept>
#include <string>

namespace quasar {

// Every error the engine reports. The message already says what went wrong and where
// (file:line, TOML key, ...); callers add context by catching and rethrowing with a prefix.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Errors in an input file: "FILE:LINE: message" (line 0 when the whole file is at fault).
class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& msg)
      : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + msg),
        file_(file), line_(line) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  std::string file_;
  long line_;
};

// Where a key of an input file is (ConfigTable::location), kept for errors found after reading, as
// when a potential binds to a system: InputError "FILE:LINE: 'key': msg", or Error "msg" for
// objects made in code (no file).
struct KeyLocation {
  std::string file;
  long line = 0;
  std::string key;  // dotted path
  [[noreturn]] void fail(const std::string& msg) const {
    if (file.empty()) throw Error(msg);
    throw InputError(file, line, "'" + key + "': " + msg);
  }
};

}  // namespace quasar
