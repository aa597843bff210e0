/* Names of the public enumerations, both ways. */
#include <string.h>

#include "core/error.h"

typedef struct name_entry {
    const char *name;
    int value;
} name_entry;

static const name_entry backend_names[] = {{"auto", KRYL_BACKEND_AUTO},
                                           {"ref", KRYL_BACKEND_REF},
                                           {"omp", KRYL_BACKEND_OMP},
                                           {"cuda", KRYL_BACKEND_CUDA}};
static const name_entry precision_names[] = {
    {"double", KRYL_DOUBLE}, {"single", KRYL_SINGLE}, {"mixed", KRYL_MIXED}};
static const name_entry method_names[] = {{"cg", KRYL_METHOD_CG},
                                          {"pcg", KRYL_METHOD_PCG},
                                          {"pipecg", KRYL_METHOD_PIPECG},
                                          {"gmres", KRYL_METHOD_GMRES},
                                          {"bicgstab", KRYL_METHOD_BICGSTAB},
                                          {"auto", KRYL_METHOD_AUTO}};
static const name_entry mixed_names[] = {{"none", KRYL_MIXED_NONE},
                                         {"ir", KRYL_MIXED_IR},
                                         {"inner-outer", KRYL_MIXED_INNER_OUTER},
                                         {"reliable", KRYL_MIXED_RELIABLE}};
static const name_entry precond_names[] = {
    {"none", KRYL_PRECOND_NONE},       {"jacobi", KRYL_PRECOND_JACOBI},
    {"lspoly", KRYL_PRECOND_LSPOLY},   {"ic0", KRYL_PRECOND_IC0},
    {"mic0", KRYL_PRECOND_MIC0},       {"ilu0", KRYL_PRECOND_ILU0},
    {"iluk", KRYL_PRECOND_ILUK},       {"ilut", KRYL_PRECOND_ILUT},
    {"bjacobi", KRYL_PRECOND_BJACOBI}, {"mcssor", KRYL_PRECOND_MCSSOR},
    {"mcilu0", KRYL_PRECOND_MCILU0},   {"amg", KRYL_PRECOND_AMG},
    {"ilutp", KRYL_PRECOND_ILUTP}};
static const name_entry amg_smoother_names[] = {
    {"auto", KRYL_AMG_AUTO_SMOOTHER}, {"chebyshev", KRYL_AMG_CHEBYSHEV},
    {"jacobi", KRYL_AMG_JACOBI},      {"l1jacobi", KRYL_AMG_L1JACOBI},
    {"mcgs", KRYL_AMG_MCGS},          {"ilu0", KRYL_AMG_ILU0}};
static const name_entry amg_cycle_names[] = {{"v", KRYL_AMG_V_CYCLE}, {"w", KRYL_AMG_W_CYCLE}};
static const name_entry amg_aggregation_names[] = {
    {"auto", KRYL_AMG_AUTO_AGGREGATION}, {"sa", KRYL_AMG_SMOOTHED}, {"plain", KRYL_AMG_PLAIN}};
static const name_entry amg_coarsening_names[] = {{"greedy", KRYL_AMG_GREEDY},
                                                  {"mis2", KRYL_AMG_MIS2},
                                                  {"parallel", KRYL_AMG_PARALLEL},
                                                  {"auto", KRYL_AMG_AUTO_COARSENING}};
static const name_entry format_names[] = {
    {"auto", KRYL_FORMAT_AUTO}, {"csr", KRYL_FORMAT_CSR},     {"ell", KRYL_FORMAT_ELL},
    {"ellr", KRYL_FORMAT_ELLR}, {"jds", KRYL_FORMAT_JDS},     {"pjds", KRYL_FORMAT_PJDS},
    {"sell", KRYL_FORMAT_SELL}, {"bcsr2", KRYL_FORMAT_BCSR2}, {"bcsr4", KRYL_FORMAT_BCSR4},
    {"dia", KRYL_FORMAT_DIA}};
static const name_entry partition_names[] = {{"auto", KRYL_PARTITION_AUTO},
                                             {"contiguous", KRYL_PARTITION_CONTIGUOUS},
                                             {"metis", KRYL_PARTITION_METIS}};
static const name_entry overlap_names[] = {
    {"vector", KRYL_OVERLAP_VECTOR}, {"naive", KRYL_OVERLAP_NAIVE}, {"task", KRYL_OVERLAP_TASK}};
static const name_entry reason_names[] = {{"none", KRYL_REASON_NONE},
                                          {"converged_rtol", KRYL_CONVERGED_RTOL},
                                          {"converged_atol", KRYL_CONVERGED_ATOL},
                                          {"converged_zero_rhs", KRYL_CONVERGED_ZERO_RHS},
                                          {"max_iterations", KRYL_DIVERGED_MAX_ITERATIONS},
                                          {"breakdown", KRYL_DIVERGED_BREAKDOWN},
                                          {"nan", KRYL_DIVERGED_NAN},
                                          {"diverged_dtol", KRYL_DIVERGED_DTOL},
                                          {"stagnation", KRYL_DIVERGED_STAGNATION},
                                          {"indefinite_pc", KRYL_DIVERGED_INDEFINITE_PC}};
static const name_entry hybrid_names[] = {{"none", KRYL_HYBRID_NONE},
                                          {"1", KRYL_HYBRID_DOTS},
                                          {"2", KRYL_HYBRID_MIRROR},
                                          {"3", KRYL_HYBRID_SPLIT},
                                          {"auto", KRYL_HYBRID_AUTO}};
static const name_entry setup_phase_names[] = {{"checks", KRYL_SETUP_CHECKS},
                                               {"model", KRYL_SETUP_MODEL},
                                               {"ordering", KRYL_SETUP_ORDERING},
                                               {"conversion", KRYL_SETUP_CONVERSION},
                                               {"upload", KRYL_SETUP_UPLOAD},
                                               {"coloring", KRYL_SETUP_COLORING},
                                               {"factorization", KRYL_SETUP_FACTORIZATION},
                                               {"levels", KRYL_SETUP_LEVELS},
                                               {"precond", KRYL_SETUP_PRECOND},
                                               {"workspace", KRYL_SETUP_WORKSPACE}};
static const name_entry read_phase_names[] = {{"parse", KRYL_READ_PARSE},
                                              {"rows", KRYL_READ_ROWS},
                                              {"sort", KRYL_READ_SORT},
                                              {"checks", KRYL_READ_CHECKS},
                                              {"storage", KRYL_READ_STORAGE}};

#define COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

static const char *lookup_name(const name_entry *table, int count, int value)
{
    for (int i = 0; i < count; i++)
        if (table[i].value == value) return table[i].name;
    return "unknown";
}

static kryl_status lookup_value(const name_entry *table, int count, const char *what,
                                const char *name, int *value)
{
    if (name == NULL) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s name is NULL", what);
    for (int i = 0; i < count; i++) {
        if (strcmp(table[i].name, name) == 0) {
            *value = table[i].value;
            return KRYL_SUCCESS;
        }
    }
    char valid[256] = "";
    for (int i = 0; i < count; i++) {
        strncat(valid, table[i].name, sizeof valid - strlen(valid) - 1);
        if (i + 1 < count) strncat(valid, "|", sizeof valid - strlen(valid) - 1);
    }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown %s '%s' (expected %s)", what, name,
                      valid);
}

#define NAME_FUNCTIONS(type, table, what, to_name, from_name)                                      \
    const char *to_name(type value) { return lookup_name(table, COUNT(table), (int)value); }       \
    kryl_status from_name(const char *name, type *value)                                           \
    {                                                                                              \
        KRYL_REQUIRE_ARG(value);                                                                   \
        int v = 0;                                                                                 \
        KRYL_TRY(lookup_value(table, COUNT(table), what, name, &v));                               \
        *value = (type)v;                                                                          \
        return KRYL_SUCCESS;                                                                       \
    }

NAME_FUNCTIONS(kryl_backend_kind, backend_names, "backend", kryl_backend_name,
               kryl_backend_from_name)
NAME_FUNCTIONS(kryl_precision, precision_names, "precision", kryl_precision_name,
               kryl_precision_from_name)
NAME_FUNCTIONS(kryl_method, method_names, "method", kryl_method_name, kryl_method_from_name)
NAME_FUNCTIONS(kryl_mixed_scheme, mixed_names, "mixed-precision scheme", kryl_mixed_scheme_name,
               kryl_mixed_scheme_from_name)
NAME_FUNCTIONS(kryl_hybrid, hybrid_names, "hybrid method", kryl_hybrid_name, kryl_hybrid_from_name)
NAME_FUNCTIONS(kryl_format, format_names, "format", kryl_format_name, kryl_format_from_name)
NAME_FUNCTIONS(kryl_precond_kind, precond_names, "preconditioner", kryl_precond_name,
               kryl_precond_from_name)
NAME_FUNCTIONS(kryl_partition_kind, partition_names, "partition", kryl_partition_name,
               kryl_partition_from_name)
NAME_FUNCTIONS(kryl_amg_smoother, amg_smoother_names, "AMG smoother", kryl_amg_smoother_name,
               kryl_amg_smoother_from_name)
NAME_FUNCTIONS(kryl_amg_cycle, amg_cycle_names, "AMG cycle", kryl_amg_cycle_name,
               kryl_amg_cycle_from_name)
NAME_FUNCTIONS(kryl_amg_aggregation, amg_aggregation_names, "AMG aggregation",
               kryl_amg_aggregation_name, kryl_amg_aggregation_from_name)
NAME_FUNCTIONS(kryl_amg_coarsening, amg_coarsening_names, "AMG coarsening",
               kryl_amg_coarsening_name, kryl_amg_coarsening_from_name)
NAME_FUNCTIONS(kryl_overlap, overlap_names, "overlap mode", kryl_overlap_name,
               kryl_overlap_from_name)

const char *kryl_reason_name(kryl_reason reason)
{
    return lookup_name(reason_names, COUNT(reason_names), (int)reason);
}

const char *kryl_setup_phase_name(kryl_setup_phase phase)
{
    return lookup_name(setup_phase_names, COUNT(setup_phase_names), (int)phase);
}

const char *kryl_read_phase_name(kryl_read_phase phase)
{
    return lookup_name(read_phase_names, COUNT(read_phase_names), (int)phase);
}
