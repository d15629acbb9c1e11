/* src/gpu/metrics_cupti_lib.h: CUPTI's entry points for --metrics, loaded
 * with dlopen at the first measurement (libcupti.so.13, then libcupti.so and
 * libcupti.so.12; COMPARE_CUPTI_LIB=PATH chooses), so compare builds and runs
 * where CUPTI is absent; and CUPTI's statuses in words. The Profiler Host
 * structs are the C declarations of metrics_cupti_host.h (the real header is
 * C++ only). METRICS_HAVE_CUPTI is defined where CUPTI's headers are; without
 * them nothing here is declared and metrics_cupti.c says so in every note. */
#ifndef COMPARE_METRICS_CUPTI_LIB_H
#define COMPARE_METRICS_CUPTI_LIB_H

#include <stddef.h>

#if defined(__has_include)
#if __has_include(<cupti_range_profiler.h>) && __has_include(<cupti_target.h>)
#define METRICS_HAVE_CUPTI 1
#endif
#endif

#ifdef METRICS_HAVE_CUPTI
#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include "metrics_cupti_host.h"

/* The calls metrics_cupti.c makes (the driver's two for the context and device). */
typedef struct {
    CUptiResult (*get_result_string)(CUptiResult, const char **);
    CUptiResult (*profiler_initialize)(CUpti_Profiler_Initialize_Params *);
    CUptiResult (*profiler_deinitialize)(CUpti_Profiler_DeInitialize_Params *);
    CUptiResult (*device_supported)(CUpti_Profiler_DeviceSupported_Params *);
    CUptiResult (*chip_name)(CUpti_Device_GetChipName_Params *);
    CUptiResult (*counter_availability)(CUpti_Profiler_GetCounterAvailability_Params *);
    CUptiResult (*host_initialize)(metrics_host_init_params *);
    CUptiResult (*host_deinitialize)(metrics_host_deinit_params *);
    CUptiResult (*host_properties)(metrics_host_properties_params *);
    CUptiResult (*host_add_metrics)(metrics_host_add_params *);
    CUptiResult (*host_config_size)(metrics_host_config_size_params *);
    CUptiResult (*host_config)(metrics_host_config_params *);
    CUptiResult (*host_passes)(metrics_host_passes_params *);
    CUptiResult (*host_evaluate)(metrics_host_evaluate_params *);
    CUptiResult (*rp_enable)(CUpti_RangeProfiler_Enable_Params *);
    CUptiResult (*rp_disable)(CUpti_RangeProfiler_Disable_Params *);
    CUptiResult (*rp_data_size)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
    CUptiResult (*rp_data_init)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
    CUptiResult (*rp_set_config)(CUpti_RangeProfiler_SetConfig_Params *);
    CUptiResult (*rp_start)(CUpti_RangeProfiler_Start_Params *);
    CUptiResult (*rp_stop)(CUpti_RangeProfiler_Stop_Params *);
    CUptiResult (*rp_push)(CUpti_RangeProfiler_PushRange_Params *);
    CUptiResult (*rp_pop)(CUpti_RangeProfiler_PopRange_Params *);
    CUptiResult (*rp_decode)(CUpti_RangeProfiler_DecodeData_Params *);
    CUptiResult (*rp_data_info)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
    CUresult (*cu_ctx_get_current)(CUcontext *);
    CUresult (*cu_device_get)(CUdevice *, int);
} metrics_fns;

/* CUPTI's entry points, loaded once per process; NULL with the reason in
 * why ("not measured: CUPTI not found (dlopen ...)"; COMPARE_METRICS_FAKE=absent
 * gives that answer without looking). */
const metrics_fns *metrics_cupti_lib(char *why, size_t why_len);
/* "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", ...: the status's name. */
const char *metrics_cupti_result_name(CUptiResult r);
/* 1 when r says counters will never work on this machine (no rights, a
 * virtualised or confidential-computing GPU, a mining processor). */
int metrics_cupti_result_final(CUptiResult r);
/* The note for CUPTI call `call` that returned r. */
void metrics_cupti_reason(char *note, size_t len, CUptiResult r, const char *call);
#endif

#endif
