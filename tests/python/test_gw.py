"""quasar.gw against the `quasar gw` command and BerkeleyGW's Si-EPM test (Si.test's values and
precisions): the readers of the wavefunction file, epsilon.h5 and sigma.json, and the EPM, Epsilon and
Sigma run in-process.
Needs ../shared/reference/gw (QUASAR_SHARED names another shared folder)."""
import os
import re
import shutil
import subprocess
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import quasar
from quasar import gw

ROOT = Path(__file__).resolve().parents[2]
SI_EPM = Path(os.environ.get("QUASAR_SHARED", ROOT.parent / "shared")) / "reference" / "gw" / "Si-EPM"

pytestmark = [
    pytest.mark.skipif(not SI_EPM.exists(), reason=f"{SI_EPM} is not here (../shared/reference/gw)"),
    pytest.mark.skipif(getattr(quasar._quasar, "gw", None) is None, reason="this build has no GW module"),
]


def quasar_command():
    exe = os.environ.get("QUASAR_EXE") or shutil.which("quasar") or str(ROOT / "build" / "quasar")
    if not Path(exe).exists():
        pytest.skip("the quasar command is not built")
    return exe


@pytest.fixture(scope="module")
def command_run(tmp_path_factory):
    """`quasar gw epsilon` on Si-EPM's epsilon.inp (q0, L, X), then `quasar gw sigma sig_GPP.inp`."""
    exe, d = quasar_command(), tmp_path_factory.mktemp("gw")
    for args in (["epsilon", SI_EPM / "epsilon.inp", "--wfn", SI_EPM / "WFN.in", "--wfnq", SI_EPM / "WFNq.in"],
                 ["sigma", SI_EPM / "sig_GPP.inp", "--wfn", SI_EPM / "WFN_co.in", "--epsilon", "epsilon.h5"]):
        r = subprocess.run([exe, "gw", *map(str, args)], cwd=d, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
    return d


@pytest.fixture(scope="module")
def in_process_sigma(command_run):
    lines = []
    s = gw.sigma(SI_EPM / "sig_GPP.inp", wfn=SI_EPM / "WFN_co.in", epsilon=command_run / "epsilon.h5",
                 progress=lines.append)
    assert any("k-point 3 of 3" in line for line in lines), lines
    return s


def test_read_epsilon_heads_match_si_test(command_run):
    eps = gw.read_epsilon(command_run / "epsilon.h5")
    assert eps.real and eps.valence_bands == 4 and len(eps.qpoints) == 3
    assert [q.q0 for q in eps.qpoints] == [True, False, False]
    np.testing.assert_allclose(eps.qpoints[2].q, [0, 0.5, 0.5])
    for q in eps.qpoints:
        n = len(q.gvectors)
        assert q.gvectors.shape == (n, 3) and q.epsilon_inverse.shape == (n, n)
        assert q.epsilon_inverse.dtype == np.complex128
        assert (q.gvectors[0] == 0).all() or not q.q0
    # Si.test: "q-pt N: Head of Epsilon Inverse", precision 2e-13.
    np.testing.assert_allclose(eps.heads.real, [0.0650198678428007, 0.36141535117630236, 0.36570423105364530],
                               rtol=0, atol=2e-13)
    # The real flavour (Si-EPM's mean field): eps^-1 has no imaginary part.
    assert max(np.abs(q.epsilon_inverse.imag).max() for q in eps.qpoints) == 0


def test_in_process_epsilon_equals_the_file(command_run, tmp_path):
    eps = gw.epsilon(SI_EPM / "epsilon.inp", wfn=SI_EPM / "WFN.in", wfnq=SI_EPM / "WFNq.in",
                     output=tmp_path / "eps.h5")
    ref = gw.read_epsilon(command_run / "epsilon.h5")
    again = gw.read_epsilon(tmp_path / "eps.h5")
    for a, b, c in zip(eps.qpoints, ref.qpoints, again.qpoints):
        assert (a.gvectors == b.gvectors).all()
        np.testing.assert_allclose(a.epsilon_inverse, b.epsilon_inverse, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(a.epsilon_inverse, c.epsilon_inverse)
        assert a.epsilon.shape == a.epsilon_inverse.shape and a.coulomb.shape == (len(a.gvectors),)
    # Si.test: "q-pt 1: Head of Epsilon", precision 2e-11.
    assert eps.qpoints[0].epsilon[0, 0].real == pytest.approx(16.9619547514149, abs=2e-11)


def test_sigma_in_process_equals_the_command(command_run, in_process_sigma):
    ref = gw.read_sigma(command_run / "sigma.json")
    s = in_process_sigma
    assert s.model == ref.model == "gpp" and len(s.kpoints) == len(ref.kpoints) == 3
    for a, b in zip(s.kpoints, ref.kpoints):
        np.testing.assert_array_equal(a.k, b.k)
        for name in gw.ELEMENT_COLUMNS:
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-9, err_msg=name)
            np.testing.assert_allclose(a.offdiagonal[name], b.offdiagonal[name], rtol=0, atol=1e-9, err_msg=name)


def test_sigma_matches_si_test(in_process_sigma):
    k1 = in_process_sigma.kpoints[0]
    np.testing.assert_allclose(k1.k, [0, 0, 0])
    assert list(k1.n[:2]) == [1, 2]
    band2 = 1
    # Si.test's sig_GPP matches, precision 2e-5 (eV), from its plain sig_GPP.inp: SX - X and CH depend on the
    # map of q onto the dielectric matrices, which follows BerkeleyGW's with the symmetry operations derived in
    # its order (docs/formats/gw-sigma.md).
    assert k1.emf[band2] == pytest.approx(10.035862, abs=2e-5)
    assert k1.x[band2] == pytest.approx(-14.234668, abs=2e-5)
    assert k1.sx_minus_x[band2] == pytest.approx(9.582573, abs=2e-5)
    assert k1.ch[band2] == pytest.approx(-7.628986, abs=2e-5)
    assert k1.ch_without_remainder[band2] == pytest.approx(-6.836764, abs=2e-5)
    off = k1.offdiagonal
    first = (off["n"] == 1) & (off["m"] == 1)
    assert off["x"][first][0] == pytest.approx(-17.224976, abs=2e-5)
    n1_n8 = (off["n"] == 1) & (off["m"] == 8)
    assert off["x"][n1_n8][0] == pytest.approx(0.000026, abs=2e-5)


def test_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.inp"
    bad.write_text("begin bands\nend\n")
    with pytest.raises(quasar.QuasarError, match="bad.inp:1:"):
        gw.sigma(bad, wfn=SI_EPM / "WFN_co.in", epsilon=tmp_path / "none.h5")
    with pytest.raises(quasar.QuasarError, match="none.h5"):
        gw.read_epsilon(tmp_path / "none.h5")
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(quasar.QuasarError, match="x.json: not a Sigma summary"):
        gw.read_sigma(tmp_path / "x.json")


# The mean field: `quasar gw epm` and quasar.gw.epm / read_wavefunctions.

def si_test_eigenvalues():
    """Si.test's eigenvalue matches on EPM outputs: (output, k-point, band, value, precision), the
    precision from the `Precision :` line above each."""
    precision, out = None, []
    grep = re.compile(r'^match\s*;\s*Eigenvalue.*GREP\((\S+)\.out,\s*"kpoint\s+(\d+)",\s*2,\s*(\d+)\);\s*(\S+)')
    for line in (SI_EPM / "Si.test").read_text().splitlines():
        if m := re.match(r"^Precision\s*:\s*(\S+)", line):
            precision = float(m[1])
        elif m := grep.match(line):
            out.append((m[1], int(m[2]), int(m[3]), float(m[4]), precision))
    return out


def printed_eigenvalues(stdout: str) -> list:
    """The eigenvalues `quasar gw epm` prints as text, per k-point the words after "N" on the lines after
    "kpoint N" (compared as text: 16 decimals need not give back the same double)."""
    blocks, current = [], None
    for line in stdout.splitlines():
        words = line.split()
        if words[:1] == ["kpoint"]:
            current = []
            blocks.append(current)
        elif current is not None and len(words) == 2 and words[0].isdigit():
            assert int(words[0]) == len(blocks)
            current.append(words[1])
        else:
            current = None
    return blocks


def as_printed(energies: np.ndarray) -> list:
    """Energies (k-points, bands) in the command's format (Fortran-like %23.16f, both correctly rounded)."""
    return [[f"{e:.16f}" for e in row] for row in energies]


@pytest.fixture(scope="module")
def epm_command(tmp_path_factory):
    """`quasar gw epm` on WFN.in, WFNq.in and WFN_co.in in one folder: {input name: stdout}, and the folder
    (which then holds WFN, WFNq and WFN_inner, the files their wfng_file names)."""
    exe, d = quasar_command(), tmp_path_factory.mktemp("epm")
    printed = {}
    for name in ("WFN", "WFNq", "WFN_co"):
        r = subprocess.run([exe, "gw", "epm", str(SI_EPM / f"{name}.in")], cwd=d, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        printed[name] = r.stdout
    return d, printed


def test_epm_eigenvalues_match_si_test(tmp_path):
    matches = si_test_eigenvalues()
    assert len(matches) == 15, "Si.test's eigenvalue matches"
    solved, checked, worst = {}, 0, 0.0
    for output, k, band, value, precision in matches:
        if not (SI_EPM / f"{output}.in").exists():
            continue  # WFN_fi and WFNq_fi: Si.test's folder ships no input for them
        if output not in solved:
            solved[output] = gw.epm(SI_EPM / f"{output}.in", output=tmp_path / output)
        m = solved[output]
        assert m.eigenvalues.shape == (len(m.kpoints), m.wavefunctions.bands) == m.wavefunctions.energies.shape[1:]
        got = m.eigenvalues[k - 1, band - 1]
        assert got == pytest.approx(value, abs=precision), (output, k, band)
        assert m.eigenvalues_ev[k - 1, band - 1] == pytest.approx(value * 13.60569253, rel=1e-15)
        worst = max(worst, abs(got - value))
        checked += 1
    assert checked == 9  # three each of WFN, WFNq and WFN_co
    print(f"largest |EPM - Si.test| {worst:.2e} Ry over {checked} eigenvalues")


def test_in_process_epm_equals_the_command(epm_command, tmp_path, monkeypatch):
    folder, printed = epm_command
    monkeypatch.chdir(tmp_path)  # the file goes where wfng_file says, relative to the current folder
    for name, written in (("WFN", "WFN"), ("WFNq", "WFNq"), ("WFN_co", "WFN_inner")):
        lines = []
        m = gw.epm(SI_EPM / f"{name}.in", progress=lines.append)
        assert m.file == written and (tmp_path / written).exists()
        assert lines == printed[name].splitlines()  # the command prints what epm says
        assert as_printed(m.eigenvalues) == printed_eigenvalues(printed[name])
        # Same datasets with the same values: the HDF5 files are the same bytes (no time stamps)...
        assert (tmp_path / written).read_bytes() == (folder / written).read_bytes(), name
        # ...and what the reader makes of them is what epm returned.
        a, b = m.wavefunctions, gw.read_wavefunctions(folder / written)
        for f in fields(gw.Wavefunctions):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if isinstance(x, list):
                assert len(x) == len(y)
                for u, v in zip(x, y):
                    np.testing.assert_array_equal(u, v, err_msg=f.name)
            else:
                np.testing.assert_array_equal(x, y, err_msg=f.name)


def test_read_wavefunctions_of_the_command(epm_command):
    folder, printed = epm_command
    w = gw.read_wavefunctions(folder / "WFN")
    assert w.real and w.spins == 1 and w.bands == 19 and w.cutoff == 11.0 and w.density_cutoff == 44.0
    assert w.kpoints.shape == (2, 3) and w.weights.shape == (2,)
    np.testing.assert_allclose(w.kpoints, [[0.25, 0.25, 0.25], [0.25, 0.25, 0.75]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(w.weights, [0.25, 0.75], rtol=0, atol=1e-15)  # WFN.in's 2 and 6
    assert list(w.kgrid) == [2, 2, 2]
    np.testing.assert_array_equal(w.atomic_numbers, [14, 14])
    # Si.test's wfn_rho_vxc_info.x checks: 171 G-vectors at most, real-space metric (0, 0) 52.646113 bohr^2.
    assert w.gvector_counts.max() == 171
    assert w.lattice[0] @ w.lattice[0] == pytest.approx(52.646113, abs=5e-7)
    np.testing.assert_allclose(w.lattice @ w.reciprocal.T, 2 * np.pi * np.eye(3), rtol=0, atol=1e-13)
    # Each k-point's G-vectors: distinct, members of the density sphere, |k+G|^2 <= the cutoff (Ry).
    sphere = {tuple(g) for g in w.gvectors}
    for k, g in enumerate(w.wavefunction_gvectors):
        assert g.dtype.kind == "i" and len({tuple(x) for x in g}) == len(g) and sphere.issuperset(map(tuple, g))
        kg = (w.kpoints[k] + g) @ w.reciprocal
        assert (np.einsum("ij,ij->i", kg, kg) <= w.cutoff).all()
    # Coefficients: real flavour, every state normalised and the states of a k-point orthonormal.
    for k, c in enumerate(w.coefficients):
        assert c.dtype == np.float64 and c.shape == (1, 19, w.gvector_counts[k])
        np.testing.assert_allclose(np.einsum("sbg,sbg->sb", c, c), 1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(c[0] @ c[0].T, np.eye(19), rtol=0, atol=1e-12)
    # Energies: the values printed (the file stores the doubles the command formats).
    assert w.energies.shape == w.occupations.shape == (1, 2, 19)
    assert as_printed(w.energies[0]) == printed_eigenvalues(printed["WFN"])
    np.testing.assert_array_equal(w.occupations[0], np.repeat([[1.0] * 4 + [0.0] * 15], 2, axis=0))
    np.testing.assert_allclose(w.energies_ev, w.energies * 13.60569253, rtol=1e-15)


def test_complex_flavour_and_two_spins(tmp_path):
    text = (SI_EPM / "WFN.in").read_text()
    text = re.sub(r"(?m)^real_or_complex.*$", "real_or_complex 2", text)
    text = re.sub(r"(?m)^nspin.*$", "nspin 2", text)
    (tmp_path / "WFN.in").write_text(text)
    m = gw.epm(tmp_path / "WFN.in", output=tmp_path / "WFN.h5")
    real = gw.epm(SI_EPM / "WFN.in", output=tmp_path / "WFN_real.h5")
    w = gw.read_wavefunctions(tmp_path / "WFN.h5")
    assert not w.real and w.spins == 2 and m.file == str(tmp_path / "WFN.h5")
    assert m.eigenvalues.shape == (2, 19) and w.energies.shape == (2, 2, 19)
    np.testing.assert_array_equal(w.energies[0], w.energies[1])  # nspin 2: the spins are copies
    np.testing.assert_allclose(m.eigenvalues, real.eigenvalues, rtol=0, atol=1e-13)
    for c in w.coefficients:
        assert c.dtype == np.complex128 and c.shape[:2] == (2, 19)
        np.testing.assert_allclose(np.einsum("sbg,sbg->sb", c.conj(), c).real, 1, rtol=0, atol=1e-12)


def test_epm_and_read_wavefunctions_errors_name_the_file(epm_command, tmp_path):
    folder, _ = epm_command
    with pytest.raises(quasar.QuasarError, match="missing.in"):
        gw.epm(tmp_path / "missing.in", output=tmp_path / "out.h5")
    bad = tmp_path / "bad.in"
    bad.write_text("EnergyCutof 11.0\n")
    with pytest.raises(quasar.QuasarError, match=r"bad.in:1: unknown keyword 'EnergyCutof'"):
        gw.epm(bad, output=tmp_path / "out.h5")
    assert not (tmp_path / "out.h5").exists()
    with pytest.raises(quasar.QuasarError, match="none.h5"):
        gw.read_wavefunctions(tmp_path / "none.h5")
    (tmp_path / "text.h5").write_text("not HDF5\n")
    with pytest.raises(quasar.QuasarError, match="text.h5"):
        gw.read_wavefunctions(tmp_path / "text.h5")
    whole = (folder / "WFN").read_bytes()
    (tmp_path / "cut.h5").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(quasar.QuasarError, match="cut.h5"):
        gw.read_wavefunctions(tmp_path / "cut.h5")
