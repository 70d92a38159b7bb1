#ifndef QD_STUB_HARDWARE_GPIO_H
#define QD_STUB_HARDWARE_GPIO_H
#include "pico/types.h"
enum gpio_function { GPIO_FUNC_UART = 2 };
#define GPIO_OUT 1
#define GPIO_IN 0
void gpio_set_function(uint gpio, enum gpio_function fn);
void gpio_init(uint gpio);
void gpio_set_dir(uint gpio, bool out);
void gpio_put(uint gpio, bool value);
bool gpio_get(uint gpio);
void gpio_pull_up(uint gpio);
#endif
