/* src/gpu/metrics_cupti_abi.cu: a compile-time check, no code. The C
 * declarations of CUPTI's Profiler Host structs (metrics_cupti_host.h: the
 * real header is C++ only) must match cupti_profiler_host.h field for field:
 * every offset and every size is asserted here, so a CUPTI whose layout
 * differs fails the build instead of filling the CSV with wrong numbers.
 * Compiled as CUDA C++ because the real header needs a C++ compiler. */
#if defined(__has_include)
#if __has_include(<cupti_profiler_host.h>)
#define METRICS_CUPTI_ABI_CHECK 1
#endif
#endif

#ifdef METRICS_CUPTI_ABI_CHECK
#include <cupti_profiler_host.h>

#include "metrics_cupti_host.h"

#define SAME_FIELD(theirs, ours, tf, of)                                                                  \
    static_assert(offsetof(theirs, tf) == offsetof(ours, of) && sizeof(((theirs *)0)->tf) == sizeof(((ours *)0)->of), \
                  #theirs "." #tf " differs from " #ours "." #of)
#define SAME_SIZE(theirs, ours) static_assert(sizeof(theirs) == sizeof(ours), #theirs " differs in size from " #ours)

static_assert(CUPTI_PROFILER_TYPE_RANGE_PROFILER == (int)METRICS_HOST_RANGE_PROFILER, "CUpti_ProfilerType");
static_assert(sizeof(CUpti_ProfilerType) == sizeof(metrics_host_profiler_type), "CUpti_ProfilerType size");
static_assert(sizeof(CUpti_MetricType) == sizeof(metrics_host_metric_type), "CUpti_MetricType size");

SAME_SIZE(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, structSize, struct_size);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, pPriv, priv);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, profilerType, profiler_type);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, pChipName, chip_name);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, pCounterAvailabilityImage,
           counter_availability_image);
SAME_FIELD(CUpti_Profiler_Host_Initialize_Params, metrics_host_init_params, pHostObject, host_object);

SAME_SIZE(CUpti_Profiler_Host_Deinitialize_Params, metrics_host_deinit_params);
SAME_FIELD(CUpti_Profiler_Host_Deinitialize_Params, metrics_host_deinit_params, pHostObject, host_object);

SAME_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, pHostObject, host_object);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, pMetricName, metric_name);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, pDescription, description);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, pHwUnit, hw_unit);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, pDimUnit, dim_unit);
SAME_FIELD(CUpti_Profiler_Host_GetMetricProperties_Params, metrics_host_properties_params, metricType, metric_type);

SAME_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, metrics_host_add_params);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, metrics_host_add_params, pHostObject, host_object);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, metrics_host_add_params, ppMetricNames, metric_names);
SAME_FIELD(CUpti_Profiler_Host_ConfigAddMetrics_Params, metrics_host_add_params, numMetrics, num_metrics);

SAME_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, metrics_host_config_size_params);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, metrics_host_config_size_params, pHostObject, host_object);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImageSize_Params, metrics_host_config_size_params, configImageSize,
           config_image_size);

SAME_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, metrics_host_config_params);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, metrics_host_config_params, pHostObject, host_object);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, metrics_host_config_params, configImageSize, config_image_size);
SAME_FIELD(CUpti_Profiler_Host_GetConfigImage_Params, metrics_host_config_params, pConfigImage, config_image);

SAME_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, metrics_host_passes_params);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, metrics_host_passes_params, configImageSize, config_image_size);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, metrics_host_passes_params, pConfigImage, config_image);
SAME_FIELD(CUpti_Profiler_Host_GetNumOfPasses_Params, metrics_host_passes_params, numOfPasses, num_passes);

SAME_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, pHostObject, host_object);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, pCounterDataImage,
           counter_data_image);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, counterDataImageSize,
           counter_data_image_size);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, rangeIndex, range_index);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, ppMetricNames, metric_names);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, numMetrics, num_metrics);
SAME_FIELD(CUpti_Profiler_Host_EvaluateToGpuValues_Params, metrics_host_evaluate_params, pMetricValues, metric_values);
#endif
