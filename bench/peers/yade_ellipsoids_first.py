# A first look at YADE's ellipsoids (issue 45; docs/bench.md, "YADE's closest ellipsoid"): 216
# grains of 0.75 x 0.5 x 0.5 mm as level-set superellipsoids with both exponents 1 (the ellipsoid
# itself), on a 6 x 6 x 6 lattice 1.54 mm apart (random attitudes), falling onto a floor (no side
# walls, no periodic cell), E = 5e6 Pa, nu = 0.3, density 2500, Hertz-Mindlin with en = es = 0.5,
# mu = 0.5, dt = 1e-5 s: 10,000 steps of settling, then 1000 timed. Talus's side is
# bench/shapes/ellipsoids_216.yaml (`talus bench bench/shapes/ellipsoids_216.yaml --warmup 10000
# --steps 1000`). Not the same bed (the attitudes are each code's own draws): the contacts and
# kinetic energy printed show how close the beds are.
#
#   yade -j 1 -n -x bench/peers/yade_ellipsoids_first.py
import math, time, random
from yade import utils, O
import yade
a,b,c=0.75e-3,0.5e-3,0.5e-3
E=5e6; nu=0.3; rho=2500; mu=0.5
mat=yade.FrictMat(young=E, poisson=nu, density=rho, frictionAngle=math.atan(mu))
O.materials.append(mat)
random.seed(5)
n=0
sp=1.54e-3
for i in range(6):
  for j in range(6):
    for k in range(6):
      bd=utils.levelSetBody('superellipsoid', extents=(a,b,c), epsilons=(1,1), spacing=0.1e-3, material=mat)
      bd.state.pos=(i*sp+sp/2, j*sp+sp/2, 0.8e-3+k*sp)
      q=[random.gauss(0,1) for _ in range(4)]; nq=math.sqrt(sum(x*x for x in q)); q=[x/nq for x in q]
      bd.state.ori=yade.Quaternion(q[0],q[1],q[2],q[3])
      O.bodies.append(bd); n+=1
O.bodies.append(utils.wall(0, axis=2, sense=1, material=mat))
O.engines=[yade.ForceResetter(),
  yade.InsertionSortCollider([yade.Bo1_LevelSet_Aabb(), yade.Bo1_Wall_Aabb()], verletDist=0.2e-3),
  yade.InteractionLoop([yade.Ig2_LevelSet_LevelSet_ScGeom(), yade.Ig2_Wall_LevelSet_ScGeom()],
                       [yade.Ip2_FrictMat_FrictMat_MindlinPhys(en=0.5, es=0.5)],
                       [yade.Law2_ScGeom_MindlinPhys_Mindlin()]),
  yade.NewtonIntegrator(gravity=(0,0,-9.81), damping=0.0)]
O.dt=1e-5
t=time.time(); O.run(10000, True); t1=time.time()-t
real=sum(1 for i in O.interactions if i.isReal)
ke0=utils.kineticEnergy(); t=time.time(); O.run(1000, True); t2=time.time()-t
real2=sum(1 for i in O.interactions if i.isReal)
wall=sum(1 for i in O.interactions if i.isReal and (i.id1==n or i.id2==n)); print("KE at warm %.3e end %.3e; wall contacts %d" % (ke0, utils.kineticEnergy(), wall)); print("n %d: 10000 steps %.1f s (contacts at the end %d); next 1000 steps %.2f s: %.2f us per particle-step, %d contacts, %.3f us per contact-step" % (n, t1, real, t2, t2/1000/n*1e6, real2, t2/1000/max(real2,1)*1e6))
