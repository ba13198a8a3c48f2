// `quasar shepard qct INPUT.toml`: quasi-classical trajectories of an atom + molecule collision on
// the input's force field; a summary on standard output and every number in a JSON file.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/qct/qct.hpp"
#include "quasar/qct/report.hpp"

namespace quasar::cli {

namespace {
const char* kQctHelp = R"(usage: quasar shepard qct INPUT.toml [--device auto|cpu|cuda] [--output FILE.json]

Quasi-classical trajectories of an atom + molecule collision: the [potential] table(s) of INPUT.toml
give the force field, its [qct] table the molecule (type names and a starting geometry), the colliding
atom, the collision energy, b_max, the number of trajectories, the seed, the timestep and the stop
rules (see docs/user-guide.md). Prints the normal modes, progress lines and a summary (outcomes,
reaction probability, cross sections with their standard errors, P(b)); writes every number,
each trajectory's too, to [qct] output or --output (JSON).
)";

void print_summary(const qct::QctResult& r, double b_max) {
  std::cout << "qct: " << r.trajectories.size() << " trajectories, " << r.steps << " trajectory-steps in "
            << std::setprecision(3) << r.seconds << " s; largest energy drift " << r.largest_drift << " eV\n";
  for (const auto& [name, count] : r.counts) std::cout << "  " << std::setw(20) << std::left << name << count << '\n';
  std::cout << std::right << std::setprecision(4);
  auto line = [](const std::string& name, const qct::Estimate& e) {
    std::cout << "  " << name << ": P = " << e.probability << " +- " << e.probability_error
              << ", sigma = " << e.cross_section << " +- " << e.cross_section_error << " Å^2\n";
  };
  std::ostringstream all;
  all << "reactive (b_max " << b_max << " Å)";
  line(all.str(), r.reactive);
  for (const auto& [name, e] : r.channels) line(name, e);
  std::cout << "  P(b):";
  for (const qct::OpacityBin& o : r.opacity)
    std::cout << ' ' << std::setprecision(3) << o.b_low << '-' << o.b_high << ": " << o.probability;
  std::cout << std::setprecision(6) << std::endl;
}
}  // namespace

int qct_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--device", "--output"});
  if (a.has("--help")) {
    std::cout << kQctHelp;
    return 0;
  }
  if (a.positional.size() != 1) throw UsageError("shepard qct takes one input file");
  const std::string path = a.positional[0];
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  top.allow_only({"potential", "qct", "device"});
  Backend backend = Backend::Cpu;
  try {
    backend = parse_backend(a.get("--device", top.get_string("device", "auto")));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    if (a.has("--device")) throw;
    top.fail("device", e.what());
  }
  const auto base = std::filesystem::absolute(path).parent_path();
  const ConfigTable table = top.require_sub("qct");
  const qct::QctSettings settings = qct::qct_settings_from_config(table);
  std::string output = a.get("--output", "");
  if (output.empty() && table.has("output")) output = (base / table.get_string("output")).string();
  ForceField force_field = make_force_field(top, base);
  const qct::QctResult result = qct::run_qct(settings, std::move(force_field), backend, &std::cout);
  print_summary(result, settings.collision.b_max);
  if (!output.empty()) {
    const std::string json = qct::report_json(settings, result, path);
    io::write_file_atomically(output, [&](std::ostream& out) { out << json << '\n'; });
    std::cout << "qct: wrote " << output << '\n';
  }
  return 0;
}

}  // namespace quasar::cli
