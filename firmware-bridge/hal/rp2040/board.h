/*
 * Pin map and constants of the RP2040 build. The link to the host is UART0 at 1 Mbaud (a
 * USB-UART bridge on the Pi side shows up as /dev/serial/by-id/...); the XL330 servos share
 * UART1 as a half-duplex bus with a direction pin on the buffer.
 */
#ifndef QD_BOARD_H
#define QD_BOARD_H

#define LINK_BAUD 1000000u
#define LINK_TX_PIN 0u
#define LINK_RX_PIN 1u
#define BUS_BAUD 1000000u
#define BUS_TX_PIN 4u
#define BUS_RX_PIN 5u
#define BUS_DIR_PIN 6u    /* high: the buffer drives the bus */
#define FOOT_LEFT_PIN 2u  /* contact switches to ground, pulled up */
#define FOOT_RIGHT_PIN 3u
#define BUZZER_PIN 15u
#define BATTERY_ADC_PIN 26u
#define BATTERY_ADC_INPUT 0u
#define BATTERY_DIVIDER 3.0f /* 2S LiPo through a 2:1 divider into a 3.3 V ADC */
#define STATE_HZ 50u
#define READ_PERIOD_MS 10u   /* servo position poll */
/* The servo bus's reply windows (bus.h). A byte is 10 bits: 10 us at 1 Mbaud. The return delay
 * must be at least what the servos' Return Delay Time register says (address 9, units of 2 us;
 * the XL330's factory value 250 is 500 us): budgeting less would let a write start while a slow
 * servo's reply is still due. A window ends early once every reply is in. */
#define BUS_BYTE_US (10000000u / BUS_BAUD)
#define BUS_RETURN_DELAY_US 500u
#define BUS_GUARD_US 20u
/* The step limit and the torque-off read-back (proto.h): the defaults suit XL330s at 50 Hz. */
#define STEP_MAX_VEL 10.0f
#define STEP_TICK_MS 20u
#define TORQUE_ATTEMPTS 3u
#define TORQUE_CONFIRM_MS 20u /* covers a position read in flight (9 ms) and the read-back itself */

#endif
