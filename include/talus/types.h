/*
 * Talus: definition structs, enums and status codes of the public API.
 *
 * Every definition struct has a default constructor (tl_*_default()) so that a
 * caller fills in only what differs; new fields never break old callers.
 * All quantities are SI: m, kg, s, N, Pa, J, rad.
 */
#ifndef TALUS_TYPES_H
#define TALUS_TYPES_H

/* The library's public functions: exported from libtalus.so, where everything else is hidden
 * (built with -fvisibility=hidden; test/arch/symbols.txt lists them). */
#if defined(__GNUC__)
#define TL_API __attribute__((visibility("default")))
#endif
#ifndef TL_API
#define TL_API
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes --------------------------------------------------------- */

typedef enum tl_status {
    TL_OK = 0,
    TL_ERROR_ARGUMENT,   /* a parameter is missing, out of range or inconsistent */
    TL_ERROR_NOT_FOUND,  /* an unknown name, id or index */
    TL_ERROR_MEMORY,     /* an allocation failed */
    TL_ERROR_IO,         /* a file could not be read or written */
    TL_ERROR_SCENE,      /* a scene file is invalid */
    TL_ERROR_UNRESOLVED, /* the time step does not resolve the contacts */
    TL_ERROR_STATE,      /* the call is not allowed in the current state */
    TL_INTERRUPTED,      /* a run was interrupted on request; its outputs hold what was done */
    TL_ERROR_BLOWUP      /* the state ran away (non-finite, overlaps beyond the limit, energy
                          * from nowhere): stopped at the last check, with a diagnostic */
} tl_status;

/* ---- handles ---- */

typedef struct tl_world tl_world; /* a simulation: every object is reached from it */
typedef struct tl_scene tl_scene; /* a world plus its plan: stages and outputs */

/* ---- small value types ------------------------------------------------------ */

typedef struct tl_vec3 {
    double x, y, z;
} tl_vec3;

/* unit quaternion, w + xi + yj + zk, rotating body frame into world frame */
typedef struct tl_quat {
    double w, x, y, z;
} tl_quat;

/* An injectable allocator. free receives the size given at allocation. */
typedef struct tl_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} tl_allocator;

/* ---- world ----------------------------------------------------------------- */

typedef enum tl_integrator {
    /* Velocity Verlet. Velocity-dependent forces (damping) see the predicted
     * end-of-step velocity v_n + dt a_n, which keeps the dashpot second order. */
    TL_INTEGRATOR_VERLET = 0,
    /* Leapfrog / velocity Verlet with forces evaluated at the half-step
     * velocity v_n + dt/2 a_n (the LAMMPS / LIGGGHTS convention). */
    TL_INTEGRATOR_LEAPFROG,
    /* Predictor-corrector (Wang et al. 2025, 002): an Euler predictor
     * x* = x + dt v, v* = v + dt a(x, v), then the trapezoidal corrector
     * with the forces at the predicted state. Two force evaluations per step. */
    TL_INTEGRATOR_PREDICTOR_CORRECTOR
} tl_integrator;

typedef struct tl_world_def {
    tl_vec3 gravity;                /* m/s2 */
    double dt;                      /* s; 0 = automatic from the contact time */
    double steps_per_contact;       /* resolution demanded of the shortest contact (>= 1, default 20) */
    double impact_speed;            /* m/s for the Hertz contact time; 0 = estimate from the scene */
    bool allow_unresolved_contacts; /* accept a given dt above the bound */
    /* accept a start in which two bodies overlap by more than half the smaller
     * radius, a body overlaps a wall by more than half its radius (a centre
     * behind a plane), or a particle lies outside the domain: refused by
     * tl_world_prepare unless set (the first step would fling them apart) */
    bool allow_initial_overlaps;
    /* Blow-up detection, every blowup_every steps (default 10; 0 = only by
     * tl_world_check_blowup, as a scene run does before each record; < 0 = never): a non-finite
     * position or velocity, a contact overlapping by more than blowup_overlap of the
     * smaller radius (default 1: the centres pass each other or a wall; 0 = not checked),
     * or kinetic + elastic energy above
     * blowup_energy times what the bodies had and were given (default 100; 0 = not
     * checked) stops tl_world_step with TL_ERROR_BLOWUP and a diagnostic. */
    int blowup_every;
    double blowup_overlap;
    double blowup_energy;
    tl_integrator integrator;
    /* Correct the impulse of the step in which a contact starts or ends for
     * the fraction of that step spent in contact (see docs/integrator.md). */
    bool contact_boundary_correction;
    double skin;                    /* m, neighbor-list skin; 0 = automatic: a tenth of the smallest
                                       diameter at tl_world_prepare, or, prepared with no particles,
                                       at the first step after some are added */
    bool has_domain;                /* particles leaving the domain are removed */
    tl_vec3 domain_min, domain_max; /* m */
    bool periodic[3];               /* periodic along x, y, z (needs the domain: its extent
                                     * is the period); positions are wrapped into it */
    int threads;                    /* worker threads for the step; 0 = all available, 1 = serial.
                                     * Results are bit-identical for any thread count. */
    bool track_energy;              /* keep the energy ledger (default true); off saves time */
    bool track_orientation;         /* integrate the particles' orientations (default true); a
                                     * sphere's does not act on anything, so off saves time when
                                     * no output needs it */
    int reorder_every;              /* neighbor builds between reorderings of the particles (by
                                     * cell, in one box of space per domain: docs/engine.md);
                                     * 0 = automatic, < 0 = never */
    uint32_t domain_size;           /* particles per domain of the contact stage (0 = 16384): the
                                     * unit of work of threads and of MPI ranks (a rank owns
                                     * whole domains); changes the order of force additions, so
                                     * the last bits of a run, never the thread or rank count's */
    uint64_t seed;                  /* random generator seed */
    tl_allocator allocator;         /* all zero = the C library's */
} tl_world_def;

/* ---- materials --------------------------------------------------------------- */

typedef struct tl_material_def {
    const char *name;      /* unique; copied */
    double density;        /* kg/m3, > 0 for particle materials */
    double youngs_modulus; /* Pa, > 0; 0 = not given */
    double poisson_ratio;  /* -1 < nu < 0.5 */
    double k_n;            /* N/m, normal stiffness of one body (linear laws); 0 = not given */
    double k_t;            /* N/m, tangential stiffness of one body; 0 = not given */
    double yield_stress;   /* Pa, for elastoplastic laws; 0 = not given */
} tl_material_def;

/* ---- contact laws -------------------------------------------------------------- */

typedef enum tl_slot {
    TL_SLOT_NORMAL = 0, /* normal elastic force */
    TL_SLOT_DAMPING,    /* normal damping force */
    TL_SLOT_TANGENTIAL, /* tangential force and Coulomb limit */
    TL_SLOT_HISTORY,    /* how the tangential displacement is kept */
    TL_SLOT_ROLLING,    /* rolling resistance: a torque against the bodies' relative rolling */
    TL_SLOT_TWISTING,   /* twisting resistance: a torque against the relative spin about the normal */
    TL_SLOT_COHESION,   /* cohesion: an adhesive normal force added to the normal and damping slots' */
    TL_SLOT_COUNT
} tl_slot;

typedef enum tl_coulomb_test {
    /* the trial force spring + dashpot is tested against mu F_n and scaled
     * onto the cone (LAMMPS, LIGGGHTS, Fleischmann et al. 2015) */
    TL_COULOMB_TOTAL = 0,
    /* the spring force alone is tested; when sliding the force is
     * mu F_n along -xi (Li et al. 2022 eq. 1 and 5) */
    TL_COULOMB_SPRING,
    /* as spring, and below the limit spring and dashpot together are capped
     * at mu F_n (the sum never exceeds the Coulomb limit) */
    TL_COULOMB_SPRING_CAPPED,
    /* the trial force tested as TOTAL; at the limit xi is kept so that spring
     * and dashpot together give the capped force, and a contact whose xi is
     * zero gets no tangential force when its trial force passes the limit
     * (LAMMPS gran/hooke/history, gran/hertz/history and pair granular) */
    TL_COULOMB_LAMMPS,
    /* the spring tested as SPRING, but against mu |F_n| (friction under
     * tension too) and only beyond the limit: a contact whose xi is zero
     * never slides, its dashpot acting even without a normal force
     * (LIGGGHTS 3.8 tangential history) */
    TL_COULOMB_LIGGGHTS
} tl_coulomb_test;

/* How much of the step in which a contact begins its tangential (and rolling,
 * twisting) displacement counts. */
typedef enum tl_entry_displacement {
    /* the part of the step in contact: the relative displacement of the drift
     * times the fraction of the step after the first touch */
    TL_ENTRY_IN_CONTACT = 0,
    /* the whole step's, as in later steps (LAMMPS, LIGGGHTS) */
    TL_ENTRY_WHOLE_STEP
} tl_entry_displacement;

/* Where the contact point of two spheres lies on their line of centres. */
typedef enum tl_contact_point {
    /* it divides the overlap in proportion to the bodies' compliances
     * (1 - nu^2)/E (or 1/k_n): each body's lever arm is R - its share */
    TL_CONTACT_POINT_COMPLIANCE = 0,
    /* each body's lever arm is its radius: the undeformed surface (the point
     * contact of the papers, Li et al. 2022 eq. 1 with l = R) */
    TL_CONTACT_POINT_SURFACE
} tl_contact_point;

#define TL_LAW_MAX_COEFFS 24

typedef struct tl_coeff {
    const char *name; /* a coefficient name declared by one of the law's sub-models */
    double value;
} tl_coeff;

typedef struct tl_law_def {
    /* The sub-model of each slot by its registry name (tl_registry_*, `talus models`), a member
     * per slot named by the slot's key; NULL = the slot's default (tl_slot_get(slot)->
     * default_model; tl_law_model resolves it, tl_law_choose sets a slot by its key). */
    const char *normal;
    const char *damping;
    const char *tangential;
    const char *history;
    const char *rolling;    /* NULL = "none" */
    const char *twisting;   /* NULL = "none" */
    const char *cohesion;   /* NULL = "none" */
    tl_coeff coeffs[TL_LAW_MAX_COEFFS];
    int coeff_count;
    bool clamp_tensile;           /* a tensile total normal force is set to zero */
    tl_coulomb_test coulomb_test;
    tl_contact_point contact_point;
    tl_entry_displacement entry_displacement;
} tl_law_def;

/* ---- particles ------------------------------------------------------------------- */

typedef enum tl_shape_kind {
    TL_SHAPE_SPHERE = 0,
    TL_SHAPE_ELLIPSOID,  /* semi-axes a, b, c */
    TL_SHAPE_MESH        /* a closed triangulated surface (polyhedron) */
} tl_shape_kind;

/* Where a mesh shape's surface comes from. */
typedef enum tl_mesh_source {
    TL_MESH_FILE = 0,     /* an STL (ASCII or binary) or OBJ file */
    TL_MESH_ICOSPHERE,    /* a subdivided icosahedron: 10 * 4^k + 2 vertices on a sphere */
    TL_MESH_ELLIPSOID,    /* a triangulated ellipsoid with a given number of vertices */
    TL_MESH_ARRAYS        /* vertices and triangles given by the caller */
} tl_mesh_source;

/* The equivalent radius a Hertzian law sees at a mesh contact (docs/geometry.md). */
typedef enum tl_mesh_radius {
    TL_MESH_RADIUS_VOLUME = 0, /* the sphere of the same volume (R* of the two bodies) */
    TL_MESH_RADIUS_AREA        /* from the patch: R = A / (2 pi delta), exact for spheres */
} tl_mesh_radius;

/* How a mesh contact's overlap is measured (docs/geometry.md, "A conservative reading"). */
typedef enum tl_mesh_depth {
    TL_MESH_DEPTH_VOLUME = 0, /* delta = 2 V / A at the pressure's centroid: the paper's polygonal
                               * contact model as Talus reads it (seed 000; scenes: contact_depth:
                               * volume) */
    TL_MESH_DEPTH_POTENTIAL   /* the default (tl_shape_default, scenes):
                               * delta = 3 Phi / V, Phi = int d^2/2 dA the overlap's first moment
                               * about the face, and the force along delta's gradient: the law's
                               * energy is a potential, so an undamped body keeps its energy.
                               * Against plane, rectangle and box walls over the section; against
                               * another mesh or a mesh wall over both surfaces inside each
                               * other (docs/geometry.md, "Two meshes") */
} tl_mesh_depth;

/* A non-spherical body shape, stored once per world and shared by its
 * particles. Its body frame has the origin at the centroid and the axes along
 * the principal axes of inertia (for a mesh: tl_shape_info's origin and frame
 * in the mesh's own coordinates). A particle's position is its centroid, and
 * its orientation turns the shape as it was given (a mesh as in its file or
 * arrays, an ellipsoid with its semi-axes along x, y, z) about that centroid:
 * a point given at v lies at position + R(orientation) (v - origin), whatever
 * the principal axes. */
typedef struct tl_shape_def {
    tl_shape_kind kind;        /* TL_SHAPE_ELLIPSOID or TL_SHAPE_MESH */
    const char *name;          /* for messages and outputs; copied */
    tl_vec3 semi_axes;         /* ellipsoid, and the generated ellipsoid mesh: a, b, c, m */
    /* mesh */
    tl_mesh_source source;
    const char *file;          /* TL_MESH_FILE */
    double scale;              /* metres per file unit (1 = the file is in metres; 0 = 1) */
    double radius;             /* TL_MESH_ICOSPHERE, m */
    int subdivisions;          /* TL_MESH_ICOSPHERE: 0 .. 7 */
    int vertices;              /* TL_MESH_ELLIPSOID: the vertex count (facets: 2 V - 4) */
    const double *vertex_xyz;  /* TL_MESH_ARRAYS: 3 * vertex_count values, m */
    size_t vertex_count;
    const uint32_t *triangles; /* TL_MESH_ARRAYS: 3 * triangle_count vertex indices, counter-
                                * clockwise seen from outside */
    size_t triangle_count;
    tl_mesh_radius mesh_radius;
    tl_mesh_depth mesh_depth;
} tl_shape_def;

typedef struct tl_shape_info {
    tl_shape_kind kind;
    const char *name;
    double volume;             /* m^3 */
    double radius;             /* bounding radius about the centroid, m */
    double volume_radius;      /* radius of the sphere of the same volume, m */
    tl_vec3 inertia;           /* principal moments of inertia per unit mass, m^2 */
    tl_vec3 semi_axes;         /* ellipsoid, m */
    size_t vertices, facets;   /* mesh */
    /* where the body frame (principal axes) lies in the frame the shape was
     * given in: the body point b is the given point origin + R(frame) b. The
     * origin is the centroid; frame is (1, 0, 0, 0) for an ellipsoid. A
     * particle's body_orientation is its orientation * frame. */
    tl_vec3 origin;
    tl_quat frame;
} tl_shape_info;

/* The particle's shape: a sphere of the given radius, or a shape of the world. */
#define TL_SPHERE 0

enum tl_particle_flags {
    TL_PARTICLE_FIXED = 1u << 0,           /* infinite mass, does not move */
    TL_PARTICLE_PRESCRIBED = 1u << 1,      /* moves with its given (constant) velocities */
    TL_PARTICLE_LOCK_ROTATION = 1u << 2    /* angular velocity kept at its given value */
};

typedef struct tl_particle_def {
    uint32_t id;              /* stable id, unique; 0 = next free id */
    int material;             /* index from tl_world_add_material */
    int shape;                /* TL_SPHERE, or an index from tl_world_add_shape */
    double radius;            /* m (sphere; other shapes take their size from the shape) */
    tl_vec3 position;         /* m */
    tl_vec3 velocity;         /* m/s */
    tl_vec3 angular_velocity; /* rad/s, world frame */
    tl_quat orientation;      /* the rotation of the shape as given (a mesh as in its file) about
                               * its centroid, body to world; normalised; all zero = identity */
    unsigned flags;           /* tl_particle_flags */
    double mass;              /* kg; 0 = density x volume */
} tl_particle_def;

typedef struct tl_particle_state {
    uint32_t id;
    int material;
    unsigned flags;
    int shape;                    /* TL_SPHERE or the index of its shape */
    double radius, mass, inertia; /* m (bounding radius of other shapes), kg, kg m2 (the
                                   * largest principal moment) */
    tl_vec3 principal_inertia;    /* kg m2, about the body axes (principal, body_orientation's) */
    tl_vec3 position, velocity, angular_velocity;
    tl_vec3 angular_momentum;     /* kg m2/s, world frame */
    tl_quat orientation;          /* the shape as given, turned about its centroid (as in
                                   * tl_particle_def): a given point v is at position +
                                   * R(orientation) (v - tl_shape_info.origin) */
    tl_vec3 force, torque; /* total force and torque of the last step, N and N m */
    tl_quat body_orientation;     /* the attitude of the body frame (principal axes, the frame of
                                   * principal_inertia and of tl_world_shape_mesh's vertices):
                                   * orientation * tl_shape_info.frame; the same as orientation
                                   * for spheres, ellipsoids and meshes given in their principal
                                   * axes */
} tl_particle_state;

/* The particle store as the engine holds it (structure of arrays, in storage
 * order), for reading in place without copying: tl_world_particle_arrays. */
typedef struct tl_particle_arrays {
    size_t count;
    /* changes whenever particles are added, removed, reordered or loaded from
     * a state; arrays read at an older generation may be stale (in another
     * order, or a frozen copy) but stay readable, see tl_world_particle_arrays */
    uint64_t generation;
    const uint32_t *id;
    const int32_t *material;
    const int32_t *shape;         /* TL_SPHERE or the index of its shape */
    const uint8_t *flags;         /* tl_particle_flags */
    const double *radius;         /* m */
    const double *mass;           /* kg */
    const double *position;       /* 3 per particle (x, y, z), m */
    const double *velocity;       /* 3 per particle, m/s */
    const double *angular_velocity; /* 3 per particle, rad/s, world frame */
    const double *force;          /* 3 per particle: total force of the last step, N */
    const double *torque;         /* 3 per particle, N m */
    const double *orientation;    /* 4 per particle: the quaternion w, x, y, z of the body frame
                                   * (tl_particle_state.body_orientation: the engine's own; the
                                   * orientation as given is this * conj(tl_shape_info.frame)) */
} tl_particle_arrays;

/* What tl_world_set_particles sets: three numbers per particle. */
typedef enum tl_particle_set {
    TL_SET_POSITION,         /* m */
    TL_SET_VELOCITY,         /* m/s */
    TL_SET_ANGULAR_VELOCITY, /* rad/s, world frame */
    TL_SET_EXTERNAL_FORCE    /* N: the constant external force (tl_world_set_particle_force) */
} tl_particle_set;

/* ---- walls --------------------------------------------------------------------------- */

typedef enum tl_wall_kind {
    TL_WALL_PLANE = 0, /* infinite plane; particles stay on the side its normal points to */
    TL_WALL_RECTANGLE, /* finite rectangle, two-sided */
    TL_WALL_BOX,       /* the six faces of an axis-aligned box (some may be left open), thin two-sided
                        * plates with their normals inwards */
    TL_WALL_MESH       /* a triangulated surface from an STL or OBJ file (or arrays), open or closed */
} tl_wall_kind;

enum tl_box_face {
    TL_BOX_XMIN = 1u << 0,
    TL_BOX_XMAX = 1u << 1,
    TL_BOX_YMIN = 1u << 2,
    TL_BOX_YMAX = 1u << 3,
    TL_BOX_ZMIN = 1u << 4,
    TL_BOX_ZMAX = 1u << 5
};

/* How a wall moves besides its translation velocity (tl_wall_def.velocity).
 * Times count from the moment the motion starts (the first step, or the stage
 * that sets it); angles are radians; the axis is normalised. */
typedef enum tl_motion_kind {
    TL_MOTION_TRANSLATE = 0, /* only the translation velocity (a servo may drive it) */
    TL_MOTION_ROTATE,        /* angular_speed about `axis` through `pivot`; the pivot moves
                              * with the translation velocity */
    TL_MOTION_OSCILLATE,     /* translation by A [sin(2 pi t / T + phase) - sin(phase)] along
                              * `axis` (A = amplitude, m; T = period, s): no jump at the start */
    TL_MOTION_ROCK           /* rotation by the angle A [sin(2 pi t / T + phase) - sin(phase)]
                              * about `axis` through `pivot` (A in rad) */
} tl_motion_kind;

typedef struct tl_motion_def {
    tl_motion_kind kind;
    tl_vec3 axis;         /* rotation axis, or the direction of an oscillation */
    tl_vec3 pivot;        /* a point on the rotation axis, m */
    double angular_speed; /* TL_MOTION_ROTATE, rad/s (right-handed about axis) */
    double amplitude;     /* TL_MOTION_OSCILLATE (m), TL_MOTION_ROCK (rad) */
    double period;        /* s */
    double phase;         /* rad */
} tl_motion_def;

typedef struct tl_wall_def {
    const char *name;    /* copied; may be NULL */
    tl_wall_kind kind;
    int material;
    tl_vec3 point;       /* plane: a point on it; rectangle: its centre */
    tl_vec3 normal;      /* plane and rectangle: unit normal */
    tl_vec3 axis;        /* rectangle: first in-plane axis (unit, normal to `normal`) */
    double half_length;  /* rectangle: half extent along axis, m */
    double half_width;   /* rectangle: half extent along normal x axis, m */
    tl_vec3 box_min, box_max; /* box: inner extent, m */
    unsigned open_faces; /* box: tl_box_face bits of faces left out */
    tl_vec3 velocity;    /* prescribed translation velocity, m/s */
    tl_motion_def motion; /* rotation or oscillation (kind TL_MOTION_TRANSLATE: none) */
    /* mesh: the surface from a file (mesh_file, metres per file unit mesh_scale; 0 = 1) or
     * from arrays (mesh_xyz: 3 per vertex, mesh_triangles: 3 vertex indices per facet), placed
     * at world = mesh_origin + R(mesh_orientation) x */
    const char *mesh_file;
    double mesh_scale;
    const double *mesh_xyz;
    size_t mesh_vertex_count;
    const uint32_t *mesh_triangles;
    size_t mesh_triangle_count;
    tl_vec3 mesh_origin;
    tl_quat mesh_orientation;   /* all zero = no rotation */
} tl_wall_def;

/* A force-controlled wall: along `direction` (unit; the way the wall moves to press on
 * the particles) its velocity follows the force error,
 *   v = gain (F_target - F), clamped to +-max_speed,
 * F the force the particles exert against that motion (-force . direction). The other
 * components of its velocity stay as prescribed (a shear-box lid can follow the box
 * sideways while the servo holds the normal load). */
typedef struct tl_servo_def {
    bool enabled;
    tl_vec3 direction;
    double target_force; /* N, >= 0 */
    double gain;         /* m/s per N, > 0 */
    double max_speed;    /* m/s, > 0 */
} tl_servo_def;

typedef struct tl_wall_state {
    int index;
    const char *name;
    tl_wall_kind kind;
    int material;
    tl_vec3 displacement; /* of its pivot (or of the wall) since the start, m */
    tl_vec3 velocity;     /* of its pivot (translation), m/s */
    tl_vec3 angular_velocity; /* rad/s */
    double angle;         /* rotation since the start of its motion about the motion's axis, rad */
    tl_vec3 force;        /* total force the particles exert on the wall, N */
    tl_vec3 torque;       /* their total torque on the wall about the world origin, N m */
    double area;          /* rectangle: its area; box: 0; plane: infinite (m2) */
    bool servo;           /* its velocity follows a force (tl_world_set_wall_servo) */
    int64_t servo_chatter; /* steps (in this process) in which the servo's speed went from one
                            * max_speed clamp to the other: its gain is too high for the
                            * contacts' damping (docs/scene.md, "Choosing the gain") */
} tl_wall_state;

/* ---- queries ---------------------------------------------------------------------------- */

/* The dynamic angle of repose of a bed in a rotating drum (tl_world_repose, docs/drum.md). */
typedef struct tl_repose_def {
    tl_vec3 axis;       /* the drum's axis (any length; default +y) */
    tl_vec3 point;      /* a point on it, m */
    double bin_width;   /* m: the surface's bins across the section; 0 = two mean diameters */
    double trim;        /* the fraction of the surface's chord left out at each end, [0, 0.5) (0.2) */
    int material;       /* the particles of this material only; -1 = every moving particle */
} tl_repose_def;

typedef struct tl_repose {
    double angle_surface;  /* deg: a line fitted to the free surface (the bins' highest tops) */
    double angle_centroid; /* deg: the bed's centroid direction from the axis, from straight down
                            * (the tilt of a flat free surface) */
    double surface_rms;    /* m: the bins' tops about the fitted line (a curved surface shows) */
    double surface_v0;     /* m: the fitted line's height (v) at u = 0, the axis */
    int bins;              /* bins in the fit */
    double centroid_u, centroid_v; /* m: the centroid in the section (u across, v up) */
    double mass;           /* kg in the bed */
    double torque_gravity; /* N m about the axis: M g u_c, what the drum supplies in steady rotation */
    size_t particles;
} tl_repose;


typedef struct tl_contact_info {
    uint32_t id_a;        /* particle id */
    uint32_t id_b;        /* particle id, or the wall index when with_wall */
    bool with_wall;
    double overlap;       /* m */
    tl_vec3 normal;       /* unit, from a towards b */
    tl_vec3 point;        /* m */
    double normal_force;  /* N, > 0 repulsive (elastic + damping, after clamping) */
    double normal_damping_force; /* N, the damping part (NAN when the world does not track energy) */
    tl_vec3 tangential_force; /* N, acting on a */
    bool sliding;         /* the Coulomb limit was reached */
    const double *history;/* the law's per-contact history values */
    int history_count;
} tl_contact_info;

/* The terms of the energy ledger, in the order of tl_energy's members and of energy.csv's
 * columns (tl_energy_term_get gives each one's name, meaning, kind and sign). */
typedef enum tl_energy_term {
    TL_ENERGY_KINETIC_TRANSLATIONAL = 0,
    TL_ENERGY_KINETIC_ROTATIONAL,
    TL_ENERGY_POTENTIAL,
    TL_ENERGY_ELASTIC_NORMAL,
    TL_ENERGY_ELASTIC_TANGENTIAL,
    TL_ENERGY_ELASTIC_ROLLING,
    TL_ENERGY_ELASTIC_TWISTING,
    TL_ENERGY_ELASTIC_COHESION,
    TL_ENERGY_DISSIPATED_NORMAL,
    TL_ENERGY_DISSIPATED_PLASTIC,
    TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING,
    TL_ENERGY_DISSIPATED_FRICTION,
    TL_ENERGY_DISSIPATED_ROLLING,
    TL_ENERGY_DISSIPATED_TWISTING,
    TL_ENERGY_DISSIPATED_COHESION,
    TL_ENERGY_BOUNDARY_WORK,
    TL_ENERGY_INTEGRATION_RESIDUAL,
    TL_ENERGY_CURVATURE_WORK,
    TL_ENERGY_TANGENTIAL_STIFFNESS_WORK,
    TL_ENERGY_TERM_COUNT
} tl_energy_term;

/* What a term is: how it enters the total and which figures it belongs with. */
typedef enum tl_energy_kind {
    TL_ENERGY_KIND_KINETIC = 0, /* of the bodies' motion, measured from their state */
    TL_ENERGY_KIND_POTENTIAL,   /* of gravity and external forces, measured */
    TL_ENERGY_KIND_ELASTIC,     /* stored in the contacts' springs, measured from their records */
    TL_ENERGY_KIND_DISSIPATED,  /* booked so far: a law's losses */
    TL_ENERGY_KIND_WORK,        /* booked so far: work done on the particles from outside the
                                 * books (subtracted from the total) */
    TL_ENERGY_KIND_RESIDUAL     /* booked so far: the integration's error, shown as such */
} tl_energy_kind;

typedef struct tl_energy_term_info {
    tl_energy_term term;
    const char *name;    /* tl_energy's member and energy.csv's column */
    const char *label;   /* for plots: "dissipated, rolling" */
    const char *meaning; /* one line, for docs and messages */
    tl_energy_kind kind;
    int sign;            /* +1 or -1: how it enters the conserved total */
    int slot;            /* the law slot (tl_slot) whose sub-models store or dissipate it, or -1 */
    const char *colour;  /* the plot's colour for it, "#rrggbb" */
} tl_energy_term_info;

/* The energy balance: each term by name or by index (term[TL_ENERGY_...], the same storage). */
typedef struct tl_energy {
    union {
        double term[TL_ENERGY_TERM_COUNT];
        struct {
            double kinetic_translational; /* J, free particles */
            double kinetic_rotational;    /* J */
            double potential;             /* J, gravity and external forces (-F.x), relative to the origin */
            double elastic_normal;        /* J stored in contacts */
            double elastic_tangential;    /* J */
            double elastic_rolling;       /* J stored in the rolling springs (rolling resistance) */
            double elastic_twisting;      /* J stored in the twisting springs (twisting resistance) */
            double elastic_cohesion;      /* J stored by cohesion: its potential, negative (a bound contact) */
            double dissipated_normal;     /* J so far by normal damping */
            double dissipated_plastic;    /* J so far by plastic deformation (elastoplastic normal laws) */
            double dissipated_tangential_damping; /* J so far by the tangential dashpot */
            double dissipated_friction;   /* J so far by Coulomb sliding */
            double dissipated_rolling;    /* J so far by rolling resistance (its slip and its dashpot) */
            double dissipated_twisting;   /* J so far by twisting resistance (its slip and its dashpot) */
            double dissipated_cohesion;   /* J so far by cohesion's hysteresis */
            double boundary_work;         /* J done on the particles by moving walls and prescribed particles */
            /* J so far: the work of the conservative normal springs minus the change of the energy
             * they store (and release at separation). Exact integration makes it 0; a finite step
             * leaves the integrator's error here, never in a dissipation column (docs/outputs.md). */
            double integration_residual;
            /* J so far put into the normal springs by their contacts' changing radius of curvature at a
             * held overlap: between two ellipsoids the Hertz radius follows the surfaces' curvature at the
             * contact, and what that changes of the stored energy is the work of no force (0 for every
             * other pair: docs/ellipsoid.md) */
            double curvature_work;
            /* J so far put into the tangential springs by their stiffness changing under a held
             * displacement: a total-form spring (mindlin, mindlin-renzo, linear with hertz-stiffness)
             * stores 1/2 k_t |xi|^2 with k_t following the overlap, so a change of load changes its
             * energy with no force doing work; negative where it takes energy out, as when a contact
             * ends with its spring loaded (docs/outputs.md) */
            double tangential_stiffness_work;
        };
    };
    double total; /* kinetic + potential + elastic + dissipated (all) + integration_residual
                   * - boundary_work - curvature_work - tangential_stiffness_work: conserved */
} tl_energy;

/* A contact that ended, with its measured outcome (for restitution checks). */
typedef struct tl_collision {
    uint32_t id_a, id_b;
    bool with_wall;
    double t_begin, t_end;     /* s, interpolated to zero overlap */
    double normal_speed_in;    /* m/s, approach speed along the normal at first touch (> 0) */
    double normal_speed_out;   /* m/s, separation speed along the final normal (> 0 when separating) */
    double restitution;        /* normal_speed_out / normal_speed_in */
    double max_overlap;        /* m */
    double max_normal_force;   /* N */
} tl_collision;

/* What a law derives for one pair of bodies: printed by `talus check`. */
typedef struct tl_pair_estimate {
    double m_eff;             /* kg */
    double r_eff;             /* m */
    double impact_speed;      /* m/s used for speed-dependent laws */
    double stiffness;         /* N/m: linear k, or the secant F/delta at the peak overlap */
    double damping;           /* N s/m at the peak overlap */
    double contact_time;      /* s, elastic (undamped) contact duration */
    double max_overlap;       /* m, elastic estimate at impact_speed */
    double tangential_stiffness; /* N/m at the peak overlap (0 without tangential spring) */
} tl_pair_estimate;

typedef struct tl_timestep_info {
    double dt;             /* s, the step in use */
    double dt_bound;       /* s, the shortest contact time / steps_per_contact */
    double contact_time;   /* s, shortest elastic contact time found */
    double impact_speed;   /* m/s used */
    bool impact_speed_estimated;
    int material_a, material_b; /* the pair that sets the bound (-1 = none) */
    bool wall;             /* material_b is a wall material */
    double steps_per_contact; /* contact_time / dt */
} tl_timestep_info;

/* The damped Hertz collision in dimensionless form, z'' + 2 lambda z' + z^3/2 = 0
 * (Ray, Kempe & Fröhlich 2015 eq. 6). */
typedef struct tl_hertz_damped {
    double lambda;      /* d t* / (2 m), t* = (m^2 / (k^2 u_in))^(1/5) */
    double restitution; /* -z'(tau_c) */
    double tau_c;       /* dimensionless duration (3.2180655 at lambda = 0) */
    double z_max;       /* dimensionless deepest overlap */
} tl_hertz_damped;

/* ---- registry --------------------------------------------------------------------------- */

typedef struct tl_coeff_info {
    const char *name;
    const char *unit;      /* "" for dimensionless */
    double default_value;  /* used when not given; NAN = none */
    bool required;         /* must be given (otherwise NAN means "derived", see meaning) */
    double min, max;       /* allowed range */
    bool min_open, max_open;
    const char *meaning;
} tl_coeff_info;

typedef struct tl_submodel_info {
    tl_slot slot;
    const char *name;
    const char *summary;
    const char *source;
    const tl_coeff_info *coeffs;
    int coeff_count;
    int history_count; /* doubles of per-contact history */
} tl_submodel_info;

/* A slot of a contact law (one row of the table of slots, `talus models`): its key (the scene's
 * key, the collision lab's --KEY, Python's keyword), what it does, and the model a law gets when
 * it names none. The energy terms a slot stores or dissipates are those whose
 * tl_energy_term_info.slot is the slot. */
typedef struct tl_slot_info {
    tl_slot slot;
    const char *key;
    const char *summary;
    /* NULL: a law must name one (normal). history: "true" with a tangential model, else
     * "none" (tl_law_model resolves it) */
    const char *default_model;
} tl_slot_info;


/* ---- rendered images (tl_world_render; the scene's image output, docs/outputs.md) --------- */

#define TL_RENDER_MAX_SIDE 16384        /* pixels, the largest width or height */
#define TL_RENDER_MAX_PIXELS 67108864   /* width x height at most (8192 x 8192: 512 MB of buffers) */

/* A picture of the world as it is: an orthographic view, spheres and ellipsoids drawn exactly per
 * pixel and mesh bodies as their triangles, with a depth buffer (the nearer surface covers the
 * farther wherever they overlap on screen) and Lambert shading from a light above and left of the
 * camera; walls drawn as outlines (planes, rectangles, box faces) or translucent (mesh walls). */
typedef struct tl_render_options {
    int width, height;       /* pixels, 1 .. TL_RENDER_MAX_SIDE, width x height <= TL_RENDER_MAX_PIXELS
                              * (1024 x 768) */
    tl_vec3 view;            /* the direction the camera looks along (0, 1, 0): x to the right */
    tl_vec3 up;              /* the direction shown upwards, not along view (0, 0, 1) */
    bool fit;                /* true (default): the view is fitted to the particles and the finite
                              * walls; false: center and extent below */
    tl_vec3 center;          /* fit false: the point at the image's centre, m */
    double extent;           /* fit false: the width of the scene the image's drawing area shows, m */
    double zoom;             /* > 0: magnification about the centre (1) */
    /* the colour: "material" (default; NULL the same), "id", "shape", "radius", "speed",
     * "angular_speed", "force" (|F|), "torque" (|T|), "kinetic_energy", "x", "y", "z", "none" */
    const char *color_by;
    double color_min, color_max; /* the colour map's range; NAN (default): the drawn particles' */
    bool color_bar;          /* a colour bar (a legend for material and shape) at the right (true) */
    bool walls;              /* draw the walls (true) */
    bool cut;                /* draw only the particles whose centre lies in the slab
                              * |(x - cut_point) . cut_normal| <= cut_thickness / 2 (false) */
    tl_vec3 cut_point;       /* m */
    tl_vec3 cut_normal;      /* any length, not zero */
    double cut_thickness;    /* m, > 0 */
    int antialias;           /* 1 (default): one sample per pixel; 2 .. 4: k x k samples averaged
                              * (the bodies' edges smooth; k^2 times the drawing's work and
                              * buffers, counted in TL_RENDER_MAX_PIXELS) */
} tl_render_options;

#ifdef __cplusplus
}
#endif

#endif /* TALUS_TYPES_H */
