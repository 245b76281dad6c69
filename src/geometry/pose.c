#include "patch.h"

#include "rigid.h"
#include "vec.h"

void tl_pose_from(tl_pose *pose, const double x[3], const double q[4]) {
    v3_copy(pose->x, x);
    q_to_matrix(q, pose->R);
}
