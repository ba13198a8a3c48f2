#pragma once
// Position and type of an atom in one 32-byte record, so that a GPU thread gathers a neighbour
// with one aligned load instead of four scattered ones. Built once per force evaluation.
namespace quasar {

struct alignas(32) PackedAtom {
  double x, y, z;
  int type, pad;  // pad: the input index where a loop looks up bonded pairs (pair_loop.cuh), else 0
};

}  // namespace quasar
