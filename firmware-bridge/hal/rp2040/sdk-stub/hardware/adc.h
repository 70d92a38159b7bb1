#ifndef QD_STUB_HARDWARE_ADC_H
#define QD_STUB_HARDWARE_ADC_H
#include "pico/types.h"
void adc_init(void);
void adc_gpio_init(uint gpio);
void adc_select_input(uint input);
uint16_t adc_read(void);
#endif
