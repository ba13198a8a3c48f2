// `quasar dp compress` (tabulate a Deep Potential's embedding nets) and `quasar dp convert`.
#include <cmath>
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#if QUASAR_WITH_DP
#include "quasar/potential/dp/compress.hpp"
#include "quasar/potential/dp/model_io.hpp"
#endif

namespace quasar::cli {

#if !QUASAR_WITH_DP
int dp_command(const std::vector<std::string>&) {
  throw UsageError("this build has no Deep Potential (configured with QUASAR_WITH_DP=OFF)");
}
#else

namespace {
const char* kHelp = R"(usage: quasar dp compress INPUT OUTPUT --min-dist R [--step 0.01] [--extrapolate 5]
       quasar dp convert INPUT OUTPUT

convert: rewrites a DeePMD-kit model between .yaml and .dp (by the extensions), checking it reads.

compress:
Writes OUTPUT (.yaml or .dp), the model INPUT whose embedding nets are evaluated as piecewise
fifth-order polynomial tables of their input, with the G^T R product fused into the lookup on the
GPU (as DeePMD-kit's `dp compress`). The fine table (stride --step) covers neighbours down to
--min-dist Å (the closest distance in the training data); a coarse one (stride 10x) extends it
--extrapolate times; closer neighbours are clamped. Prints the table's size and its largest
deviation from the nets (value and derivative) between the nodes.
)";

// Largest deviation of the tables from the nets, sampled between the nodes.
void report(const dp::DpModel& m, const dp::EmbeddingTables& t) {
  double dy = 0, ddy = 0;
  std::vector<double> y, d, ty(t.m), td(t.m);
  for (int net = 0; net < t.nets; ++net)
    for (int l = 0; l < t.intervals(); ++l)
      for (double f : {0.29, 0.5, 0.83}) {
        const double x = l < t.n0 ? t.lower + (l + f) * t.stride0 : t.upper + (l - t.n0 + f) * t.stride1;
        m.descriptor.embeddings[net].forward_scalar(x, y, d);
        t.eval(net, x, ty.data(), td.data());
        for (int q = 0; q < t.m; ++q) {
          dy = std::max(dy, std::abs(y[q] - ty[q]));
          ddy = std::max(ddy, std::abs(d[q] - td[q]));
        }
      }
  std::cout << "tables: " << t.nets << " nets x " << t.intervals() << " intervals (" << t.n0 << " fine on ["
            << t.lower << ", " << t.upper << "], " << t.n1 << " coarse to " << t.max << ") x " << t.m << " outputs, "
            << static_cast<double>(t.coef.size() * sizeof(double)) / 1e6 << " MB in double\n"
            << "largest deviation from the nets: " << dy << " (value), " << ddy << " (derivative)\n";
}
}  // namespace

int dp_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--min-dist", "--step", "--extrapolate"});
  if (a.has("--help") || a.positional.empty()) {
    std::cout << kHelp;
    return a.has("--help") ? 0 : 2;
  }
  const std::string sub = a.positional[0];
  if (sub != "compress" && sub != "convert") throw UsageError("unknown dp command '" + sub + "' (valid: compress, convert)");
  if (a.positional.size() != 3) throw UsageError("dp " + sub + " needs INPUT and OUTPUT");
  if (sub == "convert") {
    const nlohmann::json dict = dp::read_model_dict(a.positional[1]);
    dp::model_from_json(dict, a.positional[1]);
    dp::write_model_dict(a.positional[2], dict);
    std::cout << "wrote " << a.positional[2] << "\n";
    return 0;
  }
  if (!a.has("--min-dist")) throw UsageError("dp compress needs --min-dist (closest neighbour distance, Å)");
  dp::Compression c;
  try {
    c.min_nbor_dist = std::stod(a.get("--min-dist"));
    c.step = std::stod(a.get("--step", "0.01"));
    c.extrapolate = std::stoi(a.get("--extrapolate", "5"));
  } catch (const std::exception&) {
    throw UsageError("--min-dist, --step and --extrapolate take numbers");
  }
  if (!(c.min_nbor_dist > 0 && std::isfinite(c.min_nbor_dist)) || !(c.step > 0 && std::isfinite(c.step)) || c.extrapolate < 1)
    throw UsageError("needs finite --min-dist > 0, --step > 0 and --extrapolate >= 1");
  nlohmann::json dict = dp::read_model_dict(a.positional[1]);
  nlohmann::json& model = dict.contains("model") ? dict["model"] : dict;
  model["quasar_compress"] = {{"min_nbor_dist", c.min_nbor_dist}, {"step", c.step}, {"extrapolate", c.extrapolate}};
  const dp::DpModel m = dp::model_from_json(dict, a.positional[1]);
  report(m, dp::build_tables(m.descriptor, c));
  dp::write_model_dict(a.positional[2], dict);
  std::cout << "wrote " << a.positional[2] << "\n";
  return 0;
}

#endif  // QUASAR_WITH_DP

}  // namespace quasar::cli
