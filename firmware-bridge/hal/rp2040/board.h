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

#endif
