"""talus.Scene: a scene (a world plus its stages and outputs) from a YAML
file or a Python dict, run as `talus run` runs it, or stepped by hand."""
import json
import math
import os
import re

from . import _handle, _verbs
from ._lib import TalusError, ffi, lib, status_name, text
from .world import World


def _scene_error(err, status):
    buf = ffi.new("char[]", 2048)
    lib.tl_scene_error_format(err, buf, 2048)
    return TalusError(text(buf), status_name(status), file=text(err.file), line=err.line,
                      column=err.column, key=text(err.key))


_YAML_LINE = re.compile(r" \(line \d+\)|(?<=\()line \d+, ")


def _dict_error(err, status):
    """A refused dict scene: the message names the dict's path (walls[1].normal), not a line
    and column of the YAML text generated from it (line, column: None)."""
    key, msg = text(err.key), _YAML_LINE.sub("", text(err.message))
    return TalusError("%s: %s" % (key, msg) if key else msg, status_name(status), file=text(err.file),
                      line=None, column=None, key=key)


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _yaml_value(v, where):
    if isinstance(v, dict):
        parts = []
        for k, x in v.items():
            if not isinstance(k, str) or not _PLAIN_KEY.match(k):
                raise ValueError("scene key %r at %s: keys are plain names (letters, digits, _)"
                                 % (k, where or "the top"))
            parts.append("%s: %s" % (k, _yaml_value(x, (where + "." if where else "") + k)))
        return "{" + ", ".join(parts) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml_value(x, "%s[%d]" % (where, i)) for i, x in enumerate(v)) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("scene value at %s is %r: the scene takes finite numbers" % (where, v))
        return repr(v)
    if hasattr(v, "item") and hasattr(v, "dtype"):   # a NumPy scalar
        return _yaml_value(v.item(), where)
    if hasattr(v, "tolist"):                          # a NumPy array
        return _yaml_value(v.tolist(), where)
    if isinstance(v, (str, os.PathLike)):
        return json.dumps(os.fspath(v))               # a double-quoted YAML scalar
    raise TypeError("scene value at %s: %s is not a number, string, bool, list or dict"
                    % (where, type(v).__name__))


def scene_yaml(scene):
    """The YAML text of a scene given as a dict (flow style, plain keys,
    numbers with every digit): what `Scene` gives the library for a dict."""
    if not isinstance(scene, dict):
        raise TypeError("a scene dict, got %s" % type(scene).__name__)
    return _yaml_value(scene, "") + "\n"


class Scene:
    """A scene loaded and validated by the library.

    Parameters
    ----------
    source : str, os.PathLike or dict
        A scene file (YAML), or the scene as a dict with the keys of a scene
        file (docs/scene.md), e.g. ``{"talus": 1, "materials": {...},
        "stages": [...]}``. A dict is given to the library as YAML text
        (`scene_yaml`); NumPy scalars and arrays are taken as numbers and
        lists.
    directory : str, optional
        For a dict: the directory its relative file names (particle files,
        meshes) are taken from; default the current directory.
    name : str, optional
        For a dict: the name messages give it (default ``"<dict>"``).

    Raises
    ------
    TalusError
        When the scene is refused: the message gives the file, line, column
        and the dotted key, as ``talus check`` does (also as attributes). For
        a dict, the path of the offending key in the dict
        (``walls[1].normal: ...``, also ``.key``) without a line and column
        (``.line`` and ``.column`` are None).
    """

    def __init__(self, source, directory=None, name=None):
        out = ffi.new("tl_scene **")
        err = ffi.new("tl_scene_error *")
        if isinstance(source, dict):
            text_ = scene_yaml(source)
            label = os.path.join(directory or ".", name or "<dict>")
            st = lib.tl_scene_load_string(text_.encode(), label.encode(), out, err)
        elif isinstance(source, (str, os.PathLike)):
            st = lib.tl_scene_load_file(os.fsencode(source), out, err)
        else:
            raise TypeError("a scene is a file name or a dict, got %s" % type(source).__name__)
        if st != lib.TL_OK:
            raise _dict_error(err, st) if isinstance(source, dict) else _scene_error(err, st)
        self._h = _handle.Handle(lib.tl_scene_world(out[0]), out[0])
        self._world = World._of(self._h)

    @classmethod
    def from_string(cls, yaml_text, name="<string>"):
        """A scene from YAML text; `name` stands for its file in messages and
        its directory is the one relative file names are taken from."""
        self = cls.__new__(cls)
        out = ffi.new("tl_scene **")
        err = ffi.new("tl_scene_error *")
        st = lib.tl_scene_load_string(yaml_text.encode(), str(name).encode(), out, err)
        if st != lib.TL_OK:
            raise _scene_error(err, st)
        self._h = _handle.Handle(lib.tl_scene_world(out[0]), out[0])
        self._world = World._of(self._h)
        return self

    @property
    def _s(self):
        h = self._h
        if h is None or h.scene is None:
            raise TalusError("the scene is closed", "TL_ERROR_STATE")
        return h.scene

    def close(self):
        """Gives up this object's hold on the scene (freed when its World and
        the views of its particles are gone too)."""
        self._h = None
        self._world = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def world(self):
        """The scene's World: step it by hand, read its particles."""
        self._s
        return self._world

    @property
    def name(self):
        """The scene's file name (or the name given for a dict)."""
        return text(lib.tl_scene_name(self._s))

    @property
    def title(self):
        """The scene's ``name:``."""
        return text(lib.tl_scene_title(self._s))

    @property
    def duration(self):
        """All stages, s."""
        return lib.tl_scene_duration(self._s)

    @property
    def stages(self):
        """The stages as dicts: name, duration (s)."""
        s = self._s
        return [{"name": text(lib.tl_scene_stage_name(s, i)), "duration": lib.tl_scene_stage_duration(s, i)}
                for i in range(lib.tl_scene_stage_count(s))]

    @property
    def outputs(self):
        """The outputs as dicts: kind, file (relative to the output directory)."""
        s = self._s
        kind, file = ffi.new("const char **"), ffi.new("const char **")
        out = []
        for i in range(lib.tl_scene_output_count(s)):
            if lib.tl_scene_output(s, i, kind, file) == lib.TL_OK:
                out.append({"kind": text(kind[0]), "file": text(file[0])})
        return out

    def run(self, output_dir=None, write_outputs=True, threads=0, resume=None, progress=None,
            progress_interval=0.5, callback=None, every=1):
        """Runs every stage and writes the outputs, as ``talus run`` does.

        Parameters
        ----------
        output_dir : str, optional
            Where the outputs go (created; default ``out/<scene name>``).
        write_outputs : bool
            False: run without writing files.
        threads : int
            > 0 overrides the scene's thread count.
        resume : str, optional
            A checkpoint file or directory to continue from.
        progress : callable, optional
            Called with a dict (step, steps_total, time, time_total,
            wall_seconds, steps_per_second, eta_seconds, stage, stage_name,
            contacts) about every `progress_interval` seconds.
        callback : callable, optional
            Called as ``callback(world)`` (the scene's World) after every
            `every` steps of the run, once the outputs due then are recorded:
            it may read the world and change it (set, add or remove
            particles, drive walls), not step it. Returning `talus.STOP`
            stops the run there, as Ctrl-C does, outputs committed, and
            `run` returns the summary; an exception raised in it stops the
            run the same way and is raised once the outputs are committed.
        every : int
            Steps between the callback's calls (>= 1).

        Returns
        -------
        dict
            The run's summary: steps, simulated_time, wall_seconds,
            particle_steps_per_second, particles, contacts, neighbor_builds,
            energy_initial, energy_final, energy_scale,
            energy_balance_error, particles_removed, output_dir,
            files_written, particles_inserted, inflow_shortfall,
            energy_inserted, warnings, checkpoint.

        Raises
        ------
        TalusError
            With the library's message when the run fails.
        KeyboardInterrupt
            After Ctrl-C: the run stops after its current chunk of steps
            with its outputs committed (as ``talus run`` does).

        Notes
        -----
        The GIL is released while the steps run; the progress callback takes
        it back for its call.
        """
        s = self._s
        keep = []
        opt = ffi.new("tl_run_options *", lib.tl_run_options_default())

        def cs(v):
            if v is None:
                return ffi.NULL
            b = ffi.new("char[]", os.fsencode(v))
            keep.append(b)
            return b

        opt.output_dir = cs(output_dir)
        opt.write_outputs = bool(write_outputs)
        opt.threads = int(threads)
        opt.resume = cs(resume)
        flag = ffi.new("sig_atomic_t *")
        opt.interrupt = flag
        opt.progress_interval = float(progress_interval)
        interrupted = []

        @ffi.callback("void(const tl_progress *, void *)")
        def on_progress(p, user):
            # the signal handlers of Python run here, in the calling thread
            try:
                if progress is not None:
                    progress({"step": p.step, "steps_total": p.steps_total, "time": p.time,
                              "time_total": p.time_total, "wall_seconds": p.wall_seconds,
                              "steps_per_second": p.steps_per_second, "eta_seconds": p.eta_seconds,
                              "stage": p.stage, "stage_name": text(p.stage_name), "contacts": p.contacts})
            except KeyboardInterrupt:
                interrupted.append(True)
                flag[0] = 1
            except BaseException as e:  # stop the run; raised after it
                interrupted.append(e)
                flag[0] = 1

        opt.progress = on_progress
        steps_cb = _verbs.run_callback(self._world, callback, every, opt, keep)
        summary = ffi.new("tl_run_summary *")
        with self._h.lock:
            st = lib.tl_scene_run(s, opt, summary)
        if _verbs.run_callback_outcome(steps_cb, st, text(lib.tl_scene_run_error(s))):
            return _summary(summary)
        if interrupted and interrupted[0] is not True:
            raise interrupted[0]
        if st == lib.TL_INTERRUPTED:
            raise KeyboardInterrupt(text(lib.tl_scene_run_error(s)))
        if st != lib.TL_OK:
            raise TalusError(text(lib.tl_scene_run_error(s)), status_name(st))
        return _summary(summary)

    def distribute(self, comm=None):
        """Spreads the scene's world over MPI ranks before `run` (as
        ``mpirun -n P talus run`` does): `World.distribute`, with an mpi4py
        communicator or MPI_COMM_WORLD."""
        self._s
        self._world.distribute(comm)

    def stage_results(self):
        """How each stage ended in the last run: dicts with name, ended_by,
        steps, time_begin, time_end, kinetic_energy."""
        s = self._s
        r = ffi.new("tl_stage_result *")
        out = []
        for i in range(lib.tl_scene_stage_count(s)):
            if lib.tl_scene_stage_result(s, i, r) == lib.TL_OK:
                out.append({"name": text(r.name), "ended_by": text(r.ended_by), "steps": r.steps,
                            "time_begin": r.time_begin, "time_end": r.time_end,
                            "kinetic_energy": r.kinetic_energy})
        return out

    def __repr__(self):
        if self._h is None:
            return "<talus.Scene (closed)>"
        return "<talus.Scene %r: %d stages, %.6g s>" % (self.title, len(self.stages), self.duration)


def _summary(s):
    keys = ("steps", "simulated_time", "wall_seconds", "particle_steps_per_second", "particles", "contacts",
            "neighbor_builds", "energy_initial", "energy_final", "energy_scale", "energy_balance_error",
            "energy_dissipated", "energy_integration_residual",
            "particles_removed", "files_written", "particles_inserted", "inflow_shortfall", "energy_inserted")
    out = {k: getattr(s, k) for k in keys}
    out["output_dir"] = text(s.output_dir)
    out["warnings"] = text(s.warnings)
    out["checkpoint"] = text(s.checkpoint)
    return out


def load_scene(source, **kw):
    """A Scene from a file name or a dict (see `Scene`)."""
    return Scene(source, **kw)
