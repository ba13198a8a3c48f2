#include "quasar/potential/bonded/bonded_list.hpp"

#include <climits>
#include <utility>

#include "quasar/core/error.hpp"

namespace quasar {

BondedList::BondedList(const BondedSet& set, std::size_t atoms)
    : atoms_(atoms), atoms_host_(set.atoms), type_host_(set.types) {
  if (atoms_host_.size() > static_cast<std::size_t>(INT_MAX) || atoms > static_cast<std::size_t>(INT_MAX))
    throw Error("bonded entries: more than " + std::to_string(INT_MAX) + " atom places");
  offset_host_.assign(atoms + 1, 0);
  for (int k : atoms_host_) ++offset_host_[static_cast<std::size_t>(k) + 1];
  for (std::size_t k = 0; k < atoms; ++k) offset_host_[k + 1] += offset_host_[k];
  entries_host_.resize(atoms_host_.size());
  std::vector<int> fill(offset_host_.begin(), offset_host_.end() - 1);
  // The code of an atom's place is its flat position in `atoms`, entry * arity + place; every atom
  // sees its entries in file order.
  for (std::size_t p = 0; p < atoms_host_.size(); ++p)
    entries_host_[static_cast<std::size_t>(fill[static_cast<std::size_t>(atoms_host_[p])]++)] = static_cast<int>(p);
}

BondedRef BondedList::ref(Backend b) {
  if (offset_dev_.empty() || offset_dev_.backend() != b) {
    for (auto [dev, host] : {std::pair{&atoms_dev_, &atoms_host_}, std::pair{&type_dev_, &type_host_},
                             std::pair{&offset_dev_, &offset_host_}, std::pair{&entries_dev_, &entries_host_}}) {
      *dev = Array<int>(b);
      dev->assign(*host);
    }
  }
  return {entries(), atoms_dev_.data(), type_dev_.data(), offset_dev_.data(), entries_dev_.data()};
}

}  // namespace quasar
