"""OpenMM's OpenCL platform (Debian's python3-simtk and libopenmm-plugins) on PoCL, as a
molecular-dynamics user runs a small system: 216 Lennard-Jones atoms in a periodic box
with a cutoff, a Verlet integrator, ten steps per call of `step` (each step a few dozen
short launches: forces, neighbour list, integration, with the energy read back between
calls).

  python3 openmm_md.py [calls]

The check: after the timed loop, the potential energy and the forces of the final state
computed by OpenMM's OpenCL platform on PoCL must agree with its Reference platform
(double precision, on the host) on the same positions, to 1e-4 of the energy and 1e-3 of
the largest force; and the total energy must stay within 1% of its start (a wrong force
or integration step would heat or cool the box)."""
import numpy as np
import openmm as mm
from openmm import unit

from pocl_context import steps_from_argv, timed, wrong

SIDE = 6  # atoms per edge of the starting lattice: 216 atoms
SPACING = 0.38  # nm, a little more than argon's sigma
STEPS_PER_CALL = 10


def system_and_positions():
    system = mm.System()
    box = SIDE * SPACING
    system.setDefaultPeriodicBoxVectors(mm.Vec3(box, 0, 0), mm.Vec3(0, box, 0),
                                        mm.Vec3(0, 0, box))
    force = mm.NonbondedForce()
    force.setNonbondedMethod(mm.NonbondedForce.CutoffPeriodic)
    force.setCutoffDistance(1.0)
    rng = np.random.RandomState(0)
    positions = []
    for i in range(SIDE):
        for j in range(SIDE):
            for k in range(SIDE):
                system.addParticle(39.948)
                force.addParticle(0.0, 0.3405, 0.996)
                jitter = rng.uniform(-0.02, 0.02, 3)
                positions.append(mm.Vec3(*((np.array([i, j, k]) + 0.5) * SPACING + jitter)))
    system.addForce(force)
    return system, positions


def energies(context):
    state = context.getState(getEnergy=True)
    return (state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
            state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole))


def main():
    calls = steps_from_argv(200)
    system, positions = system_and_positions()
    platform = mm.Platform.getPlatformByName("OpenCL")
    integrator = mm.VerletIntegrator(0.002 * unit.picoseconds)
    context = mm.Context(system, integrator, platform, {"Precision": "single"})
    name = platform.getPropertyValue(context, "OpenCLPlatformName")
    if "Portable Computing Language" not in name:
        raise SystemExit("OpenMM did not pick PoCL (it picked %s)" % name)
    context.setPositions(positions)
    context.setVelocitiesToTemperature(80 * unit.kelvin, 1)
    potential, kinetic = energies(context)
    start_total = potential + kinetic
    state = {}

    def step():
        integrator.step(STEPS_PER_CALL)
        state["energies"] = energies(context)

    timed(step, calls)
    potential, kinetic = state["energies"]
    if not abs(potential + kinetic - start_total) < 0.01 * abs(start_total):
        wrong("the total energy drifted from %g to %g kJ/mol" %
              (start_total, potential + kinetic))
    final = context.getState(getPositions=True, getForces=True, getEnergy=True)
    reference = mm.Context(system, mm.VerletIntegrator(0.002),
                           mm.Platform.getPlatformByName("Reference"))
    reference.setPositions(final.getPositions())
    want = reference.getState(getForces=True, getEnergy=True)
    got_energy = final.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    want_energy = want.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    if not abs(got_energy - want_energy) <= 1e-4 * abs(want_energy):
        wrong("potential energy %g, Reference platform %g" % (got_energy, want_energy))
    got = np.asarray(final.getForces(asNumpy=True).value_in_unit(
        unit.kilojoule_per_mole / unit.nanometer))
    expected = np.asarray(want.getForces(asNumpy=True).value_in_unit(
        unit.kilojoule_per_mole / unit.nanometer))
    error = np.abs(got - expected).max() / np.abs(expected).max()
    if not error < 1e-3:
        wrong("the forces differ from the Reference platform's by %g of the largest" % error)


main()
