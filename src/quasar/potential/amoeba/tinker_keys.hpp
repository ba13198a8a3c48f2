#pragma once
// Tinker's keyword files: a .key and the .prm its `parameters` keyword names share one grammar.
// Each line is a keyword (any case) and its values; blank lines and lines starting with '#' are
// comments; `multipole` records continue on the next four lines (dipole, then the quadrupole's three
// rows) and `tortors` records with their grid points (two angles and a value each, any number to a
// line). A .prm file also holds prose (titles,
// literature references): there, as in Tinker, a line whose first word is no keyword is text. In a
// .key file such a line is refused, naming the file and line.
#include <string>
#include <vector>

namespace quasar::amoeba {

struct KeyRecord {
  std::string file;
  long line = 0;
  std::string keyword;             // lower case
  std::vector<std::string> words;  // the values after the keyword (quoted text kept as one word)
  std::vector<std::vector<std::string>> more;  // continuation lines (multipole, tortors)
  std::vector<long> more_lines;
  bool from_key = false;  // from the .key file rather than the parameter file
  // Throws InputError at this record's file and line.
  [[noreturn]] void fail(const std::string& msg) const;
};

// The records of a force field: the parameter file's, then the key file's, in file order (later
// records of the same parameters replace earlier ones, so that a key file can change them).
struct KeyFile {
  std::string key_path, parameter_path;
  std::vector<KeyRecord> records;
};

// Reads a .key file and the parameter file it names (`parameters NAME`: relative to the key file's
// folder, ".prm" added when NAME has no such file), or `parameter_file` instead when it is given
// (tests with the parameter file of another version). A key without `parameters` is refused.
KeyFile read_tinker_key(const std::string& key_path, const std::string& parameter_file = "");

// The records of one file. is_parameter_file: prose lines are text rather than errors.
std::vector<KeyRecord> read_keyword_file(const std::string& path, bool is_parameter_file);

// Whether the keyword is one this reader knows (the force field's records and header, the key
// file's settings): see tinker_keys.cpp for the list and what each does.
bool known_keyword(const std::string& keyword);

}  // namespace quasar::amoeba
