// input.nn: n2p2's settings of a potential, read into a Model as n2p2's Settings, Mode and SymFnc
// classes read them, with every number checked (input_nn_write.cpp writes it).
#include <algorithm>
#include <charconv>
#include <map>

#include "quasar/io/text.hpp"
#include "quasar/potential/nnp/input_nn_keywords.hpp"
#include "quasar/potential/nnp/model_io.hpp"

namespace quasar::nnp {

namespace {

using detail::KeywordUse;

// One keyword line: the keyword as written, its main name, the words after it, the line number.
struct Entry {
  std::string word, name;
  std::vector<std::string> args;
  long line = 0;
};

class Settings {
 public:
  explicit Settings(const std::filesystem::path& file) : file_(file.string()) {
    io::LineReader in(file_);
    std::string text;
    std::map<std::string, std::pair<std::string, long>> first;  // main name -> the word and line first seen
    while (in.next(text)) {
      // n2p2 ends a line at '#' or '!'.
      text = text.substr(0, std::min(text.find('#'), text.find('!')));
      auto words = io::split_words(text);
      if (words.empty()) continue;
      const detail::KeywordInfo k = detail::keyword_info(words[0]);
      if (k.use == KeywordUse::Unknown)
        in.fail("unknown keyword '" + words[0] + "' (n2p2 knows no such keyword; those of a potential are " +
                detail::prediction_keyword_list() + ", beside n2p2's training keywords)");
      if (k.use == KeywordUse::Refused)
        in.fail("'" + words[0] + "' belongs to n2p2's 4G-HDNNP (charges, electrostatics), which Quasar does not support");
      if (const auto it = first.find(k.name); it != first.end()) {
        const auto& [word, line] = it->second;
        if (word != words[0])
          in.fail("'" + words[0] + "' and '" + word + "' (line " + std::to_string(line) +
                  ") name one keyword; n2p2 refuses both in one file");
        if (!k.repeatable)
          in.fail("'" + words[0] + "' appears again (first on line " + std::to_string(line) +
                  "); n2p2 refuses a repeated keyword");
      }
      first.emplace(k.name, std::pair{words[0], in.line_number()});
      entries_.push_back({words[0], k.name, std::vector<std::string>(words.begin() + 1, words.end()), in.line_number()});
    }
  }

  [[noreturn]] void fail(long line, const std::string& msg) const { throw InputError(file_, line, msg); }
  [[noreturn]] void fail(const Entry& e, const std::string& msg) const { fail(e.line, "'" + e.word + "': " + msg); }

  const Entry* find(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  std::vector<const Entry*> all(const std::string& name) const {
    std::vector<const Entry*> out;
    for (const Entry& e : entries_)
      if (e.name == name) out.push_back(&e);
    return out;
  }
  const std::vector<Entry>& entries() const { return entries_; }

  const Entry& required(const std::string& name) const {
    if (const Entry* e = find(name)) return *e;
    fail(0, "missing keyword '" + name + "'");
  }
  void count(const Entry& e, std::size_t lo, std::size_t hi) const {
    if (e.args.size() < lo || e.args.size() > hi) {
      if (hi == 0) fail(e, "takes no value, found '" + io::join(e.args) + "'");
      const std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      fail(e, "takes " + want + " value" + (hi == 1 ? "" : "s") + ", found " + std::to_string(e.args.size()));
    }
  }
  double number(const Entry& e, std::size_t k, const std::string& what) const {
    double v = 0;
    if (!io::parse_finite(e.args[k], v)) fail(e, "expected a finite number for " + what + ", found '" + e.args[k] + "'");
    return v;
  }
  long integer(const Entry& e, std::size_t k, const std::string& what, long lo, long hi) const {
    const std::string& w = e.args[k];
    // atoi, which n2p2 uses, takes a leading '+'; from_chars does not.
    const std::size_t skip = w.size() > 1 && w[0] == '+' ? 1 : 0;
    long v = 0;
    const auto [end, ec] = std::from_chars(w.data() + skip, w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size() || (skip && w[1] == '-'))
      fail(e, "expected an integer for " + what + ", found '" + w + "'");
    if (v < lo || v > hi)
      fail(e, "expected " + what + " between " + std::to_string(lo) + " and " + std::to_string(hi) + ", found " + w);
    return v;
  }

 private:
  std::string file_;
  std::vector<Entry> entries_;
};

constexpr long kMaxHiddenLayers = 100;
constexpr long kMaxWidth = 1000000;

class Reader {
 public:
  explicit Reader(const Settings& s) : s_(s) {}

  Model read() {
    read_elements();
    read_type();
    read_atom_energies();
    read_normalisation();
    read_cutoff();
    read_scaling();
    read_networks();
    read_functions();
    for (const Entry& e : s_.entries())
      if (detail::keyword_info(e.word).use == KeywordUse::Training)
        m_.training_keywords[e.name] = {io::join(e.args), static_cast<int>(e.line)};
    return std::move(m_);
  }

 private:
  int element(const Entry& e, std::size_t k, const std::string& what) const {
    const auto it = index_.find(e.args[k]);
    if (it == index_.end())
      s_.fail(e, what + " '" + e.args[k] + "' is not one of the elements (line " + std::to_string(elements_line_) + ")");
    return it->second;
  }

  void read_elements() {
    const Entry& e = s_.required("elements");
    elements_line_ = e.line;
    if (e.args.empty()) s_.fail(e, "names no element");
    for (const std::string& symbol : e.args) {
      const int z = detail::atomic_number(symbol);
      if (z == 0) s_.fail(e, "'" + symbol + "' is not an element symbol n2p2 knows (H to No)");
      for (const ElementModel& x : m_.elements)
        if (x.symbol == symbol) s_.fail(e, "element " + symbol + " listed twice");
      ElementModel x;
      x.symbol = symbol;
      x.atomic_number = z;
      m_.elements.push_back(x);
    }
    // n2p2 numbers the elements by atomic number: element indices, scaling.data and file names follow.
    std::sort(m_.elements.begin(), m_.elements.end(),
              [](const ElementModel& a, const ElementModel& b) { return a.atomic_number < b.atomic_number; });
    for (std::size_t i = 0; i < m_.elements.size(); ++i) index_[m_.elements[i].symbol] = static_cast<int>(i);
    const Entry& n = s_.required("number_of_elements");
    s_.count(n, 1, 1);
    const long count = s_.integer(n, 0, "the number of elements", 1, 102);
    if (count != static_cast<long>(m_.elements.size()))
      s_.fail(n, "says " + std::to_string(count) + " but 'elements' (line " + std::to_string(e.line) + ") lists " +
                     std::to_string(m_.elements.size()));
  }

  void read_type() {
    const Entry* e = s_.find("nnp_type");
    if (!e) return;
    s_.count(*e, 1, 1);
    const std::string& v = e->args[0];
    if (v == "2G-HDNNP" || v == "2") return;
    if (v == "4G-HDNNP" || v == "4" || v == "Q-HDNNP" || v == "10")
      s_.fail(*e, v + ": n2p2's potentials with charges are not supported (Quasar reads 2G-HDNNP, short-range potentials)");
    s_.fail(*e, "unknown potential type '" + v + "' (n2p2's are 2G-HDNNP or 2, 4G-HDNNP or 4, Q-HDNNP or 10)");
  }

  void read_atom_energies() {
    std::map<int, long> given;
    for (const Entry* e : s_.all("atom_energy")) {
      s_.count(*e, 2, 2);
      const int i = element(*e, 0, "element");
      if (auto [it, fresh] = given.emplace(i, e->line); !fresh)
        s_.fail(*e, "element " + e->args[0] + " has an atom_energy already (line " + std::to_string(it->second) + ")");
      m_.elements[i].atom_energy = s_.number(*e, 1, "the atom energy");
    }
  }

  void read_normalisation() {
    const Entry* mean = s_.find("mean_energy");
    const Entry* energy = s_.find("conv_energy");
    const Entry* length = s_.find("conv_length");
    const int given = (mean != nullptr) + (energy != nullptr) + (length != nullptr);
    if (given == 0) {
      if (const Entry* charge = s_.find("conv_charge"))
        s_.fail(*charge, "needs mean_energy, conv_energy and conv_length (n2p2 refuses it alone)");
      return;
    }
    if (given != 3) {
      const Entry& any = mean ? *mean : energy ? *energy : *length;
      s_.fail(any, "n2p2 needs all three of mean_energy, conv_energy and conv_length, or none");
    }
    for (const Entry* e : {mean, energy, length}) s_.count(*e, 1, 1);
    m_.normalized = true;
    m_.mean_energy = s_.number(*mean, 0, "the mean energy per atom");
    m_.conv_energy = s_.number(*energy, 0, "the energy conversion factor");
    m_.conv_length = s_.number(*length, 0, "the length conversion factor");
    if (!(m_.conv_energy > 0)) s_.fail(*energy, "the conversion factor must be positive");
    if (!(m_.conv_length > 0)) s_.fail(*length, "the conversion factor must be positive");
    if (const Entry* charge = s_.find("conv_charge")) {
      s_.count(*charge, 1, 1);
      s_.number(*charge, 0, "the charge conversion factor");
    }
  }

  void read_cutoff() {
    const Entry& e = s_.required("cutoff_type");
    s_.count(e, 1, 2);
    m_.cutoff = static_cast<CutoffKind>(s_.integer(e, 0, "the cutoff type", 0, 8));
    if (e.args.size() == 2) {
      m_.cutoff_alpha = s_.number(e, 1, "the inner cutoff fraction alpha");
      if (!(m_.cutoff_alpha >= 0 && m_.cutoff_alpha < 1)) s_.fail(e, "the inner cutoff fraction alpha must lie in [0, 1)");
    }
  }

  void read_scaling() {
    auto flag = [&](const char* name) {
      const Entry* e = s_.find(name);
      if (e) s_.count(*e, 0, 0);
      return e;
    };
    const Entry* scale = flag("scale_symmetry_functions");
    const Entry* center = flag("center_symmetry_functions");
    const Entry* sigma = flag("scale_symmetry_functions_sigma");
    if (sigma && (scale || center))
      s_.fail(*sigma, "with '" + (scale ? scale : center)->word +
                          "' n2p2 would ignore it; give scale_symmetry_functions_sigma alone");
    m_.scaling = scale && center ? ScalingMode::ScaleCenter
                 : scale         ? ScalingMode::Scale
                 : center        ? ScalingMode::Center
                 : sigma         ? ScalingMode::ScaleSigma
                                 : ScalingMode::None;
    if (const Entry* e = s_.find("scale_min_short")) {
      s_.count(*e, 1, 1);
      m_.scale_min = s_.number(*e, 0, "the scaled minimum");
    }
    if (const Entry* e = s_.find("scale_max_short")) {
      s_.count(*e, 1, 1);
      m_.scale_max = s_.number(*e, 0, "the scaled maximum");
    }
    m_.normalize_nodes = flag("normalize_nodes") != nullptr;
  }

  std::string activation_letter(const Entry& e, std::size_t k) const {
    const std::string& a = e.args[k];
    if (a.size() != 1 || std::string("ltsprgcSeh").find(a[0]) == std::string::npos)
      s_.fail(e, "unknown activation '" + a + "' (n2p2's are l, t, s, p, r, g, c, S, e, h)");
    return a;
  }

  // Network shapes as n2p2's Mode::setupNeuralNetwork builds them, its quirks included (weights trained
  // by n2p2 have its shapes): element_nodes_short sets every hidden width but the last, which stays the
  // global one, and element_activation_short every hidden activation but not the output's.
  void read_networks() {
    const std::size_t n = m_.elements.size();
    const Entry* global_layers = s_.find("global_hidden_layers_short");
    long h = 0;
    if (global_layers) {
      s_.count(*global_layers, 1, 1);
      h = s_.integer(*global_layers, 0, "the number of hidden layers", 0, kMaxHiddenLayers);
    }
    std::vector<long> layers(n, global_layers ? h : -1);
    if (const Entry* e = s_.find("element_hidden_layers_short")) {
      s_.count(*e, 2, 2);
      layers[element(*e, 0, "element")] = s_.integer(*e, 1, "the number of hidden layers", 0, kMaxHiddenLayers);
    }
    for (std::size_t i = 0; i < n; ++i)
      if (layers[i] < 0) s_.fail(0, "missing keyword 'global_hidden_layers_short' (no hidden layer count for " + m_.elements[i].symbol + ")");
    std::vector<int> widths;
    if (const Entry* e = s_.find("global_nodes_short")) {
      if (static_cast<long>(e->args.size()) != h)
        s_.fail(*e, "gives " + std::to_string(e->args.size()) + " widths for " + std::to_string(h) + " hidden layers");
      for (std::size_t k = 0; k < e->args.size(); ++k)
        widths.push_back(static_cast<int>(s_.integer(*e, k, "a layer width", 1, kMaxWidth)));
    }
    std::string letters;
    if (const Entry* e = s_.find("global_activation_short")) {
      if (static_cast<long>(e->args.size()) != h + 1)
        s_.fail(*e, "gives " + std::to_string(e->args.size()) + " activations for " + std::to_string(h) +
                        " hidden layers and the output layer");
      for (std::size_t k = 0; k < e->args.size(); ++k) letters += activation_letter(*e, k);
    }
    for (std::size_t i = 0; i < n; ++i) {
      ElementModel& x = m_.elements[i];
      x.hidden.assign(static_cast<std::size_t>(layers[i]), 0);
      x.activations.assign(static_cast<std::size_t>(layers[i]) + 1, '\0');
      if (layers[i] != h) continue;  // n2p2 applies no global setting to such a network
      if (!widths.empty()) std::copy(widths.begin(), widths.end(), x.hidden.begin());
      if (!letters.empty()) x.activations = letters;
    }
    std::map<int, long> widths_given;
    for (const Entry* e : s_.all("element_nodes_short")) {
      if (e->args.empty()) s_.fail(*e, "names no element");
      const int i = element(*e, 0, "element");
      ElementModel& x = m_.elements[i];
      if (auto [it, fresh] = widths_given.emplace(i, e->line); !fresh)
        s_.fail(*e, "element " + x.symbol + " has widths already (line " + std::to_string(it->second) + ")");
      if (e->args.size() - 1 != x.hidden.size())
        s_.fail(*e, "gives " + std::to_string(e->args.size() - 1) + " widths; the network of " + x.symbol + " has " +
                        std::to_string(x.hidden.size()) + " hidden layers");
      for (std::size_t k = 1; k < e->args.size(); ++k) {
        const int w = static_cast<int>(s_.integer(*e, k, "a layer width", 1, kMaxWidth));
        if (k + 1 < e->args.size()) x.hidden[k - 1] = w;  // n2p2 leaves the last hidden layer's width
      }
    }
    if (const Entry* e = s_.find("element_activation_short")) {
      if (e->args.empty()) s_.fail(*e, "names no element");
      ElementModel& x = m_.elements[element(*e, 0, "element")];
      if (e->args.size() - 1 != x.activations.size())
        s_.fail(*e, "gives " + std::to_string(e->args.size() - 1) + " activations; the network of " + x.symbol +
                        " has " + std::to_string(x.hidden.size()) + " hidden layers and the output layer");
      for (std::size_t k = 1; k < e->args.size(); ++k) {
        const std::string a = activation_letter(*e, k);
        if (k + 1 < e->args.size()) x.activations[k - 1] = a[0];  // n2p2 keeps the output's activation
      }
    }
    for (const ElementModel& x : m_.elements) {
      for (std::size_t l = 0; l < x.hidden.size(); ++l)
        if (x.hidden[l] == 0)
          s_.fail(0, "the width of hidden layer " + std::to_string(l + 1) + " of " + x.symbol +
                         " is not given (global_nodes_short or element_nodes_short; n2p2 takes the last width from "
                         "global_nodes_short only)");
      for (std::size_t l = 0; l < x.activations.size(); ++l)
        if (x.activations[l] == '\0')
          s_.fail(0, "the activation of " + (l == x.hidden.size() ? std::string("the output layer") : "hidden layer " + std::to_string(l + 1)) +
                         " of " + x.symbol + " is not given (global_activation_short" +
                         (l == x.hidden.size() ? ", the only source of the output layer's in n2p2)" : " or element_activation_short)"));
    }
  }

  SymmetryFunction function(const Entry& e) const {
    if (e.args.size() < 2) s_.fail(e, "needs the centre element and the type, then the type's parameters");
    SymmetryFunction f;
    f.line = static_cast<int>(e.line);
    f.centre = element(e, 0, "centre element");
    f.type = static_cast<int>(s_.integer(e, 1, "the symmetry function type", 2, 25));
    // The parameters after the type, as n2p2's setParameters takes them; 3 and 9 may leave out rs.
    static const std::map<int, std::pair<std::size_t, const char*>> forms = {
        {2, {4, "<neighbour> eta rs rc"}},
        {3, {6, "<neighbour 1> <neighbour 2> eta lambda zeta rc [rs]"}},
        {9, {6, "<neighbour 1> <neighbour 2> eta lambda zeta rc [rs]"}},
        {12, {3, "eta rs rc"}},
        {13, {5, "eta rs lambda zeta rc"}},
        {20, {4, "<neighbour> rlow rc subtype"}},
        {21, {7, "<neighbour 1> <neighbour 2> rlow rc left right subtype"}},
        {22, {7, "<neighbour 1> <neighbour 2> rlow rc left right subtype"}},
        {23, {3, "rlow rc subtype"}},
        {24, {5, "rlow rc left right subtype"}},
        {25, {5, "rlow rc left right subtype"}}};
    const auto form = forms.find(f.type);
    if (form == forms.end())
      s_.fail(e, "unknown symmetry function type " + e.args[1] + " (n2p2's are 2, 3, 9, 12, 13, 20, 21, 22, 23, 24, 25)");
    const std::size_t given = e.args.size() - 2, want = form->second.first;
    const bool optional_rs = f.type == 3 || f.type == 9;
    if (given != want && !(optional_rs && given == want + 1))
      s_.fail(e, "type " + e.args[1] + " takes " + form->second.second + ", found " + std::to_string(given) + " values");
    std::size_t k = 2;
    auto next = [&](const char* what) { return s_.number(e, k++, what); };
    auto neighbour = [&] { return element(e, k++, "neighbour element"); };
    switch (f.type) {
      case 2: f.e1 = neighbour(), f.eta = next("eta"), f.rs = next("rs"), f.rc = next("rc"); break;
      case 3:
      case 9:
        f.e1 = neighbour(), f.e2 = neighbour();
        f.eta = next("eta"), f.lambda = next("lambda"), f.zeta = next("zeta"), f.rc = next("rc");
        if (k < e.args.size()) f.rs = next("rs");
        break;
      case 12: f.eta = next("eta"), f.rs = next("rs"), f.rc = next("rc"); break;
      case 13: f.eta = next("eta"), f.rs = next("rs"), f.lambda = next("lambda"), f.zeta = next("zeta"), f.rc = next("rc"); break;
      default:
        if (f.type == 20 || f.type == 21 || f.type == 22) f.e1 = neighbour();
        if (f.type == 21 || f.type == 22) f.e2 = neighbour();
        f.rlow = next("rlow"), f.rc = next("rc");
        if (f.type != 20 && f.type != 23) f.left = next("the left angle"), f.right = next("the right angle");
        subtype(e, e.args[k], f);
    }
    if (f.e2 >= 0 && f.e1 > f.e2) std::swap(f.e1, f.e2);  // n2p2 stores e1 <= e2
    if (const std::string p = detail::function_problem(f, static_cast<int>(m_.elements.size())); !p.empty()) s_.fail(e, p);
    return f;
  }

  // n2p2 takes "e" followed by anything (ignored) as the exponential core; Quasar asks for exactly "e".
  void subtype(const Entry& e, const std::string& w, SymmetryFunction& f) const {
    for (int core = 1; core <= 5; ++core)
      for (bool alt : {false, true})
        if ((core < 5 || !alt) && compact_subtype(static_cast<WindowCore>(core), alt) == w) {
          f.core = static_cast<WindowCore>(core);
          f.core_alt = alt;
          return;
        }
    s_.fail(e, "unknown subtype '" + w + "' (p1, p2, p3, p4, p1a, p2a, p3a, p4a or e)");
  }

  void read_functions() {
    for (const Entry* e : s_.all("symfunction_short")) {
      SymmetryFunction f = function(*e);
      m_.elements[static_cast<std::size_t>(f.centre)].functions.push_back(f);
    }
    for (const ElementModel& x : m_.elements)
      if (x.functions.empty())
        s_.fail(elements_line_, "element " + x.symbol + " has no symmetry functions (symfunction_short " + x.symbol + " ...)");
    sort_symmetry_functions(m_);
  }

  const Settings& s_;
  Model m_;
  std::map<std::string, int> index_;
  long elements_line_ = 0;
};

}  // namespace

Model read_input_nn(const std::filesystem::path& file) {
  const Settings settings(file);
  return Reader(settings).read();
}

}  // namespace quasar::nnp
