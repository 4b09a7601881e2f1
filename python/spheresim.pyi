"""Type stubs of the spheresim extension module (docs/python.md). SI units: m, kg, s."""

import os
from typing import Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, "os.PathLike[str]"]
_Vec3 = Tuple[float, float, float]
_Backend = Literal["auto", "gpu", "cpu", "event"]
_Precision = Literal["f32", "f64"]
# float32 for precision "f32", float64 for "f64".
_State = npt.NDArray[Union[np.float32, np.float64]]

class SpheresimError(Exception):
    """Base class of every error spheresim raises itself."""

class SceneError(SpheresimError, ValueError):
    """A scene, or a state set on a simulation, failed the scene checks, or a built-in scene
    name is unknown. The message names the item and the reason."""

class SimulationError(SpheresimError, RuntimeError):
    """A simulation could not start (no GPU adapter, a backend that cannot take the scene) or
    stopped (a non-finite or runaway state)."""

class CheckpointError(SpheresimError):
    """A checkpoint file is foreign, of another format version, truncated, corrupt, cannot be
    resumed, or cannot be written."""

def builtin_scenes() -> List[str]:
    """The names of the built-in scenes, as `Scene.builtin` takes them."""

class Scene:
    """A scene: spheres, walls, materials and simulation settings, in SI units."""

    @staticmethod
    def from_file(path: _Path) -> "Scene":
        """Reads a TOML scene file (docs/scene-files.md). Raises FileNotFoundError/OSError when
        it cannot be read, SceneError naming the file, table and line of a problem."""

    @staticmethod
    def builtin(name: str, particles: Optional[int] = None) -> "Scene":
        """A built-in scene with `particles` spheres (default: its own count). Raises
        SceneError for an unknown name or a count the scene cannot take."""

    @staticmethod
    def from_arrays(
        positions: npt.ArrayLike,
        velocities: Optional[npt.ArrayLike],
        radii: npt.ArrayLike,
        masses: Optional[npt.ArrayLike] = None,
        materials: Union[None, str, Sequence[Optional[str]]] = None,
        *,
        dt: float = 1e-4,
        steps: int = 1000,
        gravity: _Vec3 = (0.0, 0.0, 0.0),
        restitution: float = 1.0,
        contact: Literal["impulse", "spring-dashpot", "hertz"] = "impulse",
        stiffness: float = 1e4,
        g_const: float = 0.0,
        softening: float = 0.0,
        walls: Optional[Tuple[_Vec3, _Vec3]] = None,
        periodic: Optional[Tuple[bool, bool, bool]] = None,
        domain: Optional[Tuple[_Vec3, _Vec3]] = None,
        images: Optional[npt.ArrayLike] = None,
        wall_forces: bool = False,
        name: str = "arrays",
    ) -> "Scene":
        """A scene from arrays: positions (N, 3) m; velocities (N, 3) m/s or None (at rest);
        radii (N,) or one number, m; masses (N,) or one number, kg, or None (material density
        × volume); materials: a preset name (steel, glass, wood, ivory, rubber) for all, or one
        name or None per sphere; dt s; gravity m/s²; restitution of spheres and walls without a
        material; stiffness N/m (spring-dashpot); g_const m³ kg⁻¹ s⁻²; softening m; walls: the
        (min, max) corners of a box of six walls, m; periodic: three booleans (x, y, z) for
        periodic boundaries over domain, the (min, max) corners of the box, m. Raises ValueError
        for a wrong shape or periodic without domain, SceneError for a value that fails the
        scene checks."""

    @property
    def name(self) -> str: ...
    @property
    def dt(self) -> float:
        """Time step, s."""
    @dt.setter
    def dt(self, value: float) -> None: ...
    @property
    def steps(self) -> int:
        """The scene's own step count (what `spheresim run` takes without --steps)."""
    @steps.setter
    def steps(self, value: int) -> None: ...
    @property
    def gravity(self) -> _Vec3:
        """Uniform gravitational field, m/s²."""
    @property
    def positions(self) -> npt.NDArray[np.float64]:
        """Centres as given, (N, 3), m."""
    @property
    def velocities(self) -> npt.NDArray[np.float64]:
        """Velocities as given, (N, 3), m/s."""
    @property
    def radii(self) -> npt.NDArray[np.float64]:
        """Radii, (N,), m."""
    @property
    def masses(self) -> npt.NDArray[np.float64]:
        """Masses, (N,), kg (inf for fixed spheres)."""
    def __len__(self) -> int: ...

class Simulation:
    """A running simulation of a scene on one backend and precision. State arrays are float32
    for precision "f32", float64 for "f64", in input order."""

    def __init__(
        self,
        scene: Scene,
        backend: _Backend = "auto",
        precision: _Precision = "f32",
        *,
        allow_overlap: bool = False,
    ) -> None:
        """Checks `scene` and sets it up. Raises SceneError when the scene fails its checks,
        SimulationError when the backend cannot run it, ValueError for an unknown name."""

    def step(self, n: int = 1) -> None:
        """Advances n steps of dt with the GIL released. Raises SimulationError when the state
        becomes non-finite or blows up."""

    @property
    def step_count(self) -> int:
        """Steps done since the scene's start."""
    @property
    def time(self) -> float:
        """Simulated time since the scene's start, s."""
    @property
    def dt(self) -> float:
        """Time step, s."""
    @property
    def backend(self) -> Literal["gpu", "cpu", "event"]: ...
    @property
    def precision(self) -> _Precision: ...
    @property
    def adapter(self) -> str: ...
    @property
    def notice(self) -> Optional[str]:
        """Why "auto" took the CPU, that "gpu" runs on a software adapter, or why a resume is
        not bit for bit; None otherwise."""
    @property
    def scene(self) -> Scene:
        """A copy of the scene run (with any state set since)."""
    @property
    def positions(self) -> _State:
        """Centres, (N, 3), m. Settable between steps: checked as a scene's; the engine then
        restarts from the new state (step count, time, collisions, dissipated energy, the
        periodic images, the orientations and the contacts' history go on)."""
    @positions.setter
    def positions(self, value: npt.ArrayLike) -> None: ...
    @property
    def velocities(self) -> _State:
        """Velocities, (N, 3), m/s. Settable as positions."""
    @velocities.setter
    def velocities(self, value: npt.ArrayLike) -> None: ...
    @property
    def angular_velocities(self) -> _State:
        """Angular velocities, (N, 3), rad/s (zero without rotation)."""
    @property
    def radii(self) -> _State:
        """Radii, (N,), m."""
    @property
    def masses(self) -> _State:
        """Masses, (N,), kg."""
    @property
    def images(self) -> npt.NDArray[np.int32]:
        """Periodic images, (N, 3): box lengths crossed along x, y, z (zeros without periodic
        boundaries)."""

    @property
    def wall_forces(self) -> npt.NDArray[np.float64]:
        """The force the spheres exerted on each wall in the last step, (W, 3), N; (0, 3)
        unless the scene was made with wall_forces=True."""

    def diagnostics(self) -> Dict[str, Union[int, float]]:
        """The diagnostics.csv columns (step, time s, kinetic, potential_uniform,
        potential_gravity, potential_spring, total J, px py pz kg·m/s, lx ly lz kg·m²/s,
        contacts, collisions, dissipated, kinetic_rotational J) plus energy_balance J,
        momentum_magnitude_sum kg·m/s, friction_history_dropped, neighbour_rebuilds."""

    def checkpoint(self, path: _Path) -> None:
        """Writes a checkpoint (the format of `spheresim run --checkpoint`) atomically."""

    @staticmethod
    def resume(
        path: _Path,
        backend: Optional[_Backend] = None,
        precision: Optional[_Precision] = None,
    ) -> "Simulation":
        """Continues a checkpoint file, bit for bit on its own backend and precision."""

    def __len__(self) -> int: ...
