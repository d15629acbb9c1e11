/* src/gpu/metrics_cupti_host.h: the parameter structs of CUPTI's Profiler
 * Host API (cupti_profiler_host.h), declared again in C.
 *
 * Why: CUDA 13's cupti_profiler_host.h includes <string>, so a C file cannot
 * include it, and src/gpu is C. CUPTI's parameter structs are a stable ABI
 * (each call checks structSize, which grows only by appending fields), so
 * the fields are declared here in the header's order, with our names, for
 * the calls src/gpu/metrics_cupti.c makes. src/gpu/metrics_cupti_abi.cu
 * includes both headers and static_asserts that every offset and size
 * matches: a CUPTI that changes a layout breaks the build, not the numbers. */
#ifndef COMPARE_METRICS_CUPTI_HOST_H
#define COMPARE_METRICS_CUPTI_HOST_H

#include <stddef.h>
#include <stdint.h>

/* structSize as CUPTI defines it: up to the end of the last field */
#define METRICS_HOST_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

typedef enum { METRICS_HOST_RANGE_PROFILER = 0 } metrics_host_profiler_type; /* CUpti_ProfilerType */
typedef enum { METRICS_HOST_METRIC_COUNTER = 0 } metrics_host_metric_type;   /* CUpti_MetricType */
typedef struct metrics_host_object metrics_host_object;                     /* CUpti_Profiler_Host_Object */

typedef struct { /* CUpti_Profiler_Host_Initialize_Params */
    size_t struct_size;
    void *priv;
    metrics_host_profiler_type profiler_type;
    const char *chip_name;
    const uint8_t *counter_availability_image;
    metrics_host_object *host_object;                 /* out */
} metrics_host_init_params;

typedef struct { /* CUpti_Profiler_Host_Deinitialize_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
} metrics_host_deinit_params;

typedef struct { /* CUpti_Profiler_Host_GetMetricProperties_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
    const char *metric_name;
    const char *description;                          /* out */
    const char *hw_unit;                              /* out */
    const char *dim_unit;                             /* out */
    metrics_host_metric_type metric_type;             /* out */
} metrics_host_properties_params;

typedef struct { /* CUpti_Profiler_Host_ConfigAddMetrics_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
    const char **metric_names;
    size_t num_metrics;
} metrics_host_add_params;

typedef struct { /* CUpti_Profiler_Host_GetConfigImageSize_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
    size_t config_image_size;                         /* out */
} metrics_host_config_size_params;

typedef struct { /* CUpti_Profiler_Host_GetConfigImage_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
    size_t config_image_size;
    uint8_t *config_image;                            /* filled */
} metrics_host_config_params;

typedef struct { /* CUpti_Profiler_Host_GetNumOfPasses_Params */
    size_t struct_size;
    void *priv;
    size_t config_image_size;
    uint8_t *config_image;
    size_t num_passes;                                /* out */
} metrics_host_passes_params;

typedef struct { /* CUpti_Profiler_Host_EvaluateToGpuValues_Params */
    size_t struct_size;
    void *priv;
    metrics_host_object *host_object;
    const uint8_t *counter_data_image;
    size_t counter_data_image_size;
    size_t range_index;
    const char **metric_names;
    size_t num_metrics;
    double *metric_values;                            /* filled */
} metrics_host_evaluate_params;

#endif
