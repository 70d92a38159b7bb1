/*
 * Joint order is the policy's (sim-kit README): left leg, neck/head, right leg; the mouth motor
 * is not a policy joint and is not exposed. The limits are conservative placeholders that contain
 * both the legacy and the alpha home poses; a calibrated robot replaces this table.
 */
#include "duck.h"

const char *const duck_joint_names[DUCK_JOINTS] = {
    "left_hip_yaw",  "left_hip_roll",  "left_hip_pitch",  "left_knee",  "left_ankle",
    "neck_pitch",    "head_pitch",     "head_yaw",        "head_roll",  "right_hip_yaw",
    "right_hip_roll", "right_hip_pitch", "right_knee",    "right_ankle",
};

const float duck_lower[DUCK_JOINTS] = {
    -0.6f, -0.5f, -1.5f, -1.6f, -1.5f, -1.0f, -1.0f, -1.5f, -0.5f, -0.6f, -0.5f, -1.5f, -1.6f, -1.5f,
};

const float duck_upper[DUCK_JOINTS] = {
    0.6f, 0.5f, 1.5f, 1.6f, 1.5f, 1.0f, 1.0f, 1.5f, 0.5f, 0.6f, 0.5f, 1.5f, 1.6f, 1.5f,
};

/* robotd DEFAULT_POSITION ("STAND2"): the right leg mirrors the left. */
const float duck_home[DUCK_JOINTS] = {
    0.0f,    -0.0873f, -0.4579f, -0.0049f, 0.4530f, 0.3491f, 0.3491f,
    0.0f,    0.0f,     0.0f,     0.0873f,  0.4579f, 0.0049f, -0.4530f,
};
