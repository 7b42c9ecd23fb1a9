/* convcheck plugin ABI: how the conformance runner talks to a convolution backend under test.
 *
 * One C header to include, nothing C++ in it; its parts are split by concept into convcheck/plugin/
 * (types.h: what every operation shares; conv.h, cc.h, transposed.h: each operation's descriptor and
 * buffers; quantization.h: 1.5's integer convolution, 1.7's per-channel zero points, 1.8's per-output-channel weights zero points, 1.9's per-output-channel dst scales; post_ops.h: 1.6's fused post-ops; conv.h: 1.7's fpmath mode), and this file holds the version, the function
 * table and the entry point.
 * A plugin is a shared library that exports one symbol,
 * convcheck_get_api, returning a table of function pointers. The runner owns every tensor;
 * a plugin owns only what it creates (its instance, its plans, its errors) and frees it through
 * its own calls. A plugin may decline a case ("unsupported", with a reason); it is never forced
 * to guess. Errors are values (NULL on success) with a code and a message, never C++ exceptions
 * across this boundary.
 *
 * Versioning (see conformance/ABI-CHANGELOG.md): every struct begins with `size_t struct_size`,
 * set by whoever fills the struct to CONVCHECK_STRUCT_SIZE(type, last field it knows), and
 * structs only grow at the end. A reader must check struct_size before touching a field and
 * treat a missing field as its documented default (every field added after 1.0 names its
 * default, and the version that added it). A breaking change bumps the major version (the runner
 * refuses a plugin whose major differs); an addition bumps the minor version.
 *
 * Ownership and lifetime are written on every field: "runner-owned" memory belongs to the runner
 * and is valid only during the call it is passed to unless the field says otherwise;
 * "plugin-owned" memory belongs to the plugin and lives as long as the field says.
 *
 * Processes and threads. The runner loads the library (dlopen) in its own process and calls
 * convcheck_get_api there; it then forks one child process per call sequence (negotiation, and
 * each case: create .. query .. prepare .. execute .. destroy) and makes every other call in that
 * child. Hence:
 *   - Load time (static constructors, convcheck_get_api) must start no thread and take no lock
 *     another thread could hold: a fork copies only the calling thread, so a thread started at
 *     load time is missing in every child, and a lock it held stays locked there forever.
 *     Start thread pools in create (or lazily in execute), never before.
 *   - No state carries between cases: each child starts from the runner's process as it was after
 *     loading, and exits with _exit (no atexit handlers, no static destructors).
 *   - A plugin may use threads inside a child, up to create_args.num_threads (0: its own default).
 *     Every call on one instance, and on the plans it made, comes from one thread at a time.
 *   - 1.2: the runner offers its own thread pool (create_args.thread_pool, convcheck_thread_pool):
 *     a plugin that runs its parallel loops there starts no thread of its own, and the runner counts
 *     the tasks (the case's "thread_pool_tasks"). Its threads start in the child, at the first run.
 *   - Process-wide settings are the whole child's: a plugin that sets one (omp_set_num_threads, an
 *     environment variable, a signal handler, the FPU mode) changes it for everything in that
 *     process, the runner's pool too. Set it in create or execute, never at load time; the runner
 *     restores nothing, but the next case starts in a fresh child.
 *   - A child runs under a time limit and a memory limit (the runner's workspace, 1.2, counts in
 *     it); the plugin's prints go to stderr.
 */
#ifndef CONVCHECK_PLUGIN_H
#define CONVCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

/* the parts, each self-contained */
#include "convcheck/plugin/types.h"
#include "convcheck/plugin/conv.h"
#include "convcheck/plugin/cc.h"
#include "convcheck/plugin/transposed.h"
#include "convcheck/plugin/quantization.h"
#include "convcheck/plugin/post_ops.h"
#include "convcheck/plugin/scales.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CONVCHECK_ABI_MAJOR 1
#define CONVCHECK_ABI_MINOR 9

/* Size of a struct up to and including `last_field`: what a writer that knows fields up to
 * `last_field` puts in struct_size. */
#define CONVCHECK_STRUCT_SIZE(type, last_field) \
    (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

#if defined(_WIN32)
#define CONVCHECK_EXPORT __declspec(dllexport)
#else
#define CONVCHECK_EXPORT __attribute__((visibility("default")))
#endif

/* ---- the function table ---------------------------------------------------------------------- */
/* Plugin-owned, static: lives as long as the library is loaded. Entries appended after 1.0 are read
 * only when struct_size covers them; NULL (or not covered) means the default each entry names. */
typedef struct {
    size_t struct_size;
    int32_t abi_major; /* CONVCHECK_ABI_MAJOR the plugin was built against */
    int32_t abi_minor;

    /* Creates an instance. On success *out is set (plugin-owned until destroy) and NULL is returned. */
    convcheck_error* (*create)(const convcheck_create_args* args, convcheck_plugin** out);
    /* Frees the instance and everything it owns. Its plans are destroyed before it. */
    void (*destroy)(convcheck_plugin* plugin);
    /* Fills *info (the caller sets info->struct_size and the defaults). */
    convcheck_error* (*describe)(convcheck_plugin* plugin, convcheck_plugin_info* info);

    /* Discrete convolution; both NULL when the plugin has no CONVCHECK_OP_CONV. conv_execute is the
     * one-shot call: it runs one case from scratch (a plugin with conv_prepare may implement it as
     * prepare + execute + destroy). */
    convcheck_error* (*conv_query)(convcheck_plugin* plugin, const convcheck_conv_desc* desc, convcheck_support* out);
    convcheck_error* (*conv_execute)(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                     const convcheck_conv_args* args);

    /* Continuous convolution; both NULL when the plugin has no CONVCHECK_OP_CC. */
    convcheck_error* (*cc_query)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out);
    convcheck_error* (*cc_execute)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, const convcheck_cc_args* args);

    /* The message of an error (plugin-owned, valid until error_destroy), and its release. */
    const char* (*error_message)(const convcheck_error* error);
    void (*error_destroy)(convcheck_error* error);

    /* 1.2: the kind of an error (a convcheck_error_code). Default (NULL or not covered):
     * CONVCHECK_ERROR_UNKNOWN for every error. */
    int32_t (*error_code)(const convcheck_error* error);

    /* 1.2: prepare once, execute many. All four NULL (or not covered) by default: the runner then
     * uses conv_execute alone. A plugin sets all four or none, and only with conv_query.
     * The runner calls conv_query first and prepares only a case the plugin supports.
     *   conv_prepare: makes a plan for *desc (copied: the plan must not point into desc) and, when
     *     args->weights is not NULL, for those weights (see convcheck_conv_prepare_args). On success
     *     *out is set (plugin-owned until conv_plan_destroy) and NULL is returned.
     *   conv_plan_describe: fills *info (the caller sets struct_size and the defaults).
     *   conv_plan_execute: computes one convolution into args->dst; may be called any number of
     *     times, each with the same result for the same inputs.
     *   conv_plan_destroy: frees the plan and all it holds (before the instance's destroy). */
    convcheck_error* (*conv_prepare)(convcheck_plugin* plugin, const convcheck_conv_desc* desc,
                                     const convcheck_conv_prepare_args* args, convcheck_conv_plan** out);
    convcheck_error* (*conv_plan_describe)(const convcheck_conv_plan* plan, convcheck_plan_info* info);
    convcheck_error* (*conv_plan_execute)(convcheck_conv_plan* plan, const convcheck_conv_args* args);
    void (*conv_plan_destroy)(convcheck_conv_plan* plan);

    /* 1.3: transposed convolution (CONVCHECK_OP_CONV_TRANSPOSED); both NULL (or not covered) by
     * default: the plugin has none, and the runner sends it no transposed case. Both or neither.
     * conv_transposed_execute computes dst from src, weights and bias (NULL when has_bias == 0) in
     * a convcheck_conv_args (runner-owned, valid during the call; inputs read-only; dst exactly as
     * long as its elements, a guard page after it). Every other buffer of the args is NULL: no
     * workspace, no diff buffers, no plan (a transposed convolution runs through this one-shot call). */
    convcheck_error* (*conv_transposed_query)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                              convcheck_support* out);
    convcheck_error* (*conv_transposed_execute)(convcheck_plugin* plugin, const convcheck_conv_transposed_desc* desc,
                                                const convcheck_conv_args* args);

    /* 1.4: the backward pass of the forward CC layer *desc (CONVCHECK_OP_CC_BACKWARD); both or neither; NULL
     * (or not covered), the default: none, and the runner sends it no CC backward case. */
    convcheck_error* (*cc_backward_query)(convcheck_plugin* plugin, const convcheck_cc_desc* desc, convcheck_support* out);
    convcheck_error* (*cc_backward_execute)(convcheck_plugin* plugin, const convcheck_cc_desc* desc,
                                            const convcheck_cc_backward_args* args);
} convcheck_api;

/* The one exported entry point. Returns a table that lives as long as the library is loaded.
 * Called in the runner's own process, before any fork: it must start no thread (see "Processes and
 * threads" at the top). */
typedef const convcheck_api* (*convcheck_get_api_fn)(void);
CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONVCHECK_PLUGIN_H */
