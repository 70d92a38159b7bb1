/*
 * The cable: how a test rig plugs the host firmware into a pty it holds itself
 * (test/helpers/held-pty.ts, test/bridge/rig.ts). A pty's master has no path to open (opening
 * /dev/ptmx makes a new pty) and quackd opens the slave's, as it opens /dev/ttyACM0, so the rig
 * hands the master over: an inherited unix socket (--cable FD) carries one byte an event, 'p' with
 * the master as SCM_RIGHTS (plugged in) or 'u' alone (pulled out). The rig keeps its own copy of
 * the master, so the port stays while this program is down, as a USB adapter's does while the
 * board behind it reboots.
 */
#ifndef QD_CABLE_H
#define QD_CABLE_H

#define CABLE_PLUGGED 'p'
#define CABLE_PULLED 'u'

/*
 * Reads the cable's next event: CABLE_PLUGGED (the master in *fd, non-blocking), CABLE_PULLED,
 * 0 when the rig's end is gone, -1 when nothing is there yet or the message made no sense.
 */
int cable_receive(int cable, int *fd);

#endif
