/*
 * The robot this firmware drives: the Microduck's 14 joints in policy/actuator order, their
 * position limits and home pose. hello announces exactly these; set_targets is clamped to them.
 */
#ifndef QD_DUCK_H
#define QD_DUCK_H

#define DUCK_JOINTS 14
/* One bit per joint, in joint order. */
#define DUCK_ALL_JOINTS ((1u << DUCK_JOINTS) - 1u)

extern const char *const duck_joint_names[DUCK_JOINTS];
extern const float duck_lower[DUCK_JOINTS];
extern const float duck_upper[DUCK_JOINTS];
extern const float duck_home[DUCK_JOINTS];

#endif
