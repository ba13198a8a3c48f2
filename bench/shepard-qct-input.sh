# Sourced by bench/shepard-qct*.sh: qct_input DEVICE SET.shepard INPUT.toml TRAJECTORIES OUTPUT.json [EXTRA]
# prints a `quasar shepard qct` input: the device, the set as a shepard potential, INPUT.toml's [qct]
# table with TRAJECTORIES trajectories in one batch, a 1e-4 eV/Å minimum force for the starts'
# Newton steps (an interpolated surface's gradient stalls near 1e-5), EXTRA [qct] lines, the output.
qct_input() {
  local device=$1 set_file=$2 input=$3 trajectories=$4 output=$5 extra=${6:-}
  echo "device = \"$device\""
  echo "[potential]"
  echo "type = \"shepard\""
  echo "file = \"$set_file\""
  echo
  sed -n '/^\[qct\]/,/^$/p' "$input" | sed -e "s/^trajectories = .*/trajectories = $trajectories/" -e '/^$/d'
  echo "batch = $trajectories"
  echo "minimum_force = 1e-4"
  [ -n "$extra" ] && printf '%b\n' "$extra"
  echo "output = \"$output\""
}
