#include "quasar/potential/nnp/train/outputs.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <iomanip>

namespace quasar::nnp {

std::string formatted(const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

void write_n2p2_header(std::ostream& o, const std::vector<std::string>& title, const std::vector<FileColumn>& columns) {
  const std::size_t width = 80;
  const std::string rule(width, '#');
  o << rule << "\n";
  for (const std::string& t : title) o << "# " << t << "\n";
  o << rule << "\n";
  std::size_t name_width = 0, data_width = 0;
  for (const FileColumn& c : columns) {
    name_width = std::max(name_width, c.name.size());
    data_width += c.width + 1;
  }
  data_width -= 1;
  o << "# " << std::left << std::setw(4) << "Col" << ' ' << std::setw(static_cast<int>(name_width)) << "Name"
    << " Description\n";
  o << rule << "\n";
  for (std::size_t i = 0; i < columns.size(); ++i)
    o << "# " << std::left << std::setw(4) << i + 1 << ' ' << std::setw(static_cast<int>(name_width)) << columns[i].name
      << ' ' << columns[i].info << "\n";
  o << (data_width > width ? std::string(data_width, '#') : rule) << "\n";
  o << "#" << std::right;
  for (std::size_t i = 0; i < columns.size(); ++i)
    o << ' ' << std::setw(static_cast<int>(columns[i].width - (i == 0 ? 2 : 0))) << i + 1;
  o << "\n#";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::size_t w = columns[i].width - (i == 0 ? 2 : 0);
    o << ' ' << std::setw(static_cast<int>(w)) << columns[i].name.substr(0, w);
  }
  o << "\n" << std::string(data_width, '#') << "\n" << std::left;
}

namespace {

struct Metric {
  std::string name, text;
};
std::vector<Metric> energy_metrics() {
  return {{"RMSEpa", "root mean square error of the energy per atom, %s structures"},
          {"RMSE", "root mean square error of the energy, %s structures"},
          {"MAEpa", "mean absolute error of the energy per atom, %s structures"},
          {"MAE", "mean absolute error of the energy, %s structures"}};
}
std::vector<Metric> force_metrics() {
  return {{"RMSE", "root mean square error of the force components, %s structures"},
          {"MAE", "mean absolute error of the force components, %s structures"}};
}

void add_columns(std::vector<FileColumn>& cols, const std::vector<Metric>& metrics, const std::string& tiny,
                 const std::string& suffix, const std::string& units) {
  for (const Metric& m : metrics)
    for (const char* set : {"train", "test"}) {
      char info[128];
      std::snprintf(info, sizeof info, m.text.c_str(), set[1] == 'r' ? "training" : "test");
      cols.push_back({16, m.name + "_" + tiny + set + "_" + suffix, std::string(info) + ", " + units});
    }
}

}  // namespace

void write_curve_header(std::ostream& o, const CurveLayout& layout) {
  std::vector<std::string> title{std::string("Learning curve of Quasar's training: errors of the energies") +
                                 (layout.forces ? " and forces" : "") + " after each epoch"};
  std::vector<FileColumn> cols{{10, "epoch", "epoch (0: the initial weights)"}};
  add_columns(cols, energy_metrics(), "E", "pu", "units of the files");
  if (layout.forces) add_columns(cols, force_metrics(), "F", "pu", "units of the files");
  if (layout.normalized) {
    add_columns(cols, energy_metrics(), "E", "iu", "normalised training units");
    if (layout.forces) add_columns(cols, force_metrics(), "F", "iu", "normalised training units");
  }
  write_n2p2_header(o, title, cols);
}

void write_curve_row(std::ostream& o, const CurveLayout& layout, long epoch, const ErrorMetrics& train,
                     const ErrorMetrics& test) {
  o << formatted("%10ld", epoch);
  auto values = [&](double e, double f) {
    o << formatted(" %16.8E %16.8E", train.rmse_pa * e, test.rmse_pa * e)
      << formatted(" %16.8E %16.8E", train.rmse * e, test.rmse * e)
      << formatted(" %16.8E %16.8E", train.mae_pa * e, test.mae_pa * e)
      << formatted(" %16.8E %16.8E", train.mae * e, test.mae * e);
    if (layout.forces)
      o << formatted(" %16.8E %16.8E", train.force_rmse * f, test.force_rmse * f)
        << formatted(" %16.8E %16.8E", train.force_mae * f, test.force_mae * f);
  };
  if (layout.normalized) values(layout.energy_unit, layout.force_unit);
  values(1, 1);
  o << "\n";
}

void write_comparison_header(std::ostream& o, bool forces) {
  if (forces)
    write_n2p2_header(o, {"Forces of the structures: reference and prediction"},
                      {{10, "index_s", "structure, from 0 in input.data"},
                       {10, "index_a", "atom, from 0 (its x, y and z components on consecutive lines)"},
                       {16, "Fref", "reference force component, training units"},
                       {16, "Fnnp", "predicted force component, training units"}});
  else
    write_n2p2_header(o, {"Energies of the structures: reference and prediction"},
                      {{10, "index", "structure, from 0 in input.data"},
                       {16, "Eref", "reference energy per atom, training units"},
                       {16, "Ennp", "predicted energy per atom, training units"}});
}

}  // namespace quasar::nnp
