/* mesh.c - the rank mesh of a parallel training run (mesh.h).
 *
 * Every group of the mesh is a set of ranks that share all coordinates but
 * one factor of the replica index (or, for a tensor group, the tensor
 * rank). A kind's groups of a stage are numbered outer index x T + tensor
 * rank (a tensor group: its replica), so that a group's number and its
 * members follow from arithmetic, with no table per group: a 16,384-GPU
 * mesh costs a few arrays of S integers. */
#include "config.h"

#include "core/error.h"
#include "schedule/mesh.h"

struct _DtsMesh {
  int S, T, C, EP;
  gboolean stages_inside;
  int *replicas;  /* [S]: R_s */
  int *slot0;     /* [S]: the slot of replica 0 of stage s (replicas-inside) */
  int n_slots;    /* the replicas of every stage */
  /* [kind][S + 1]: the groups of kind before stage s */
  int *first[DTS_MESH_N_GROUPS];
};

static const char *const kind_names[DTS_MESH_N_GROUPS] = {
  "tensor", "context", "data", "expert", "expert-data",
};

const char *
dts_mesh_group_kind_name (DtsMeshGroup kind)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, "?");
  return kind_names[kind];
}

/* Groups of KIND on a stage of R replicas. */
static gint64
groups_per_stage (const DtsMesh *m, DtsMeshGroup kind, gint64 R)
{
  switch (kind) {
  case DTS_MESH_TENSOR:
    return R;
  case DTS_MESH_CONTEXT:
    return R / m->C * m->T;
  case DTS_MESH_DATA:
    return m->T;
  case DTS_MESH_EXPERT:
    return R / m->EP * m->T;
  case DTS_MESH_EXPERT_DATA:
    return (gint64) m->EP * m->T;
  default:
    g_return_val_if_reached (0);
  }
}

DtsMesh *
dts_mesh_new (int S, const int *replicas, int T, int C, int EP, gboolean stages_inside,
              GError **error)
{
  if (S < 1 || T < 1 || C < 1 || EP < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "rank mesh: %d stages, tensor %d, context %d and expert %d: every degree must "
                 "be at least 1",
                 S, T, C, EP);
    return NULL;
  }
  gint64 slots = 0;
  for (int s = 0; s < S; s++) {
    int R = replicas[s];
    const char *what = NULL;
    int by = 0;
    if (R < 1)
      what = "has no replica", by = 1;
    else if (R % C != 0)
      what = "context-parallel", by = C;
    else if (R % EP != 0)
      what = "expert-parallel", by = EP;
    if (what != NULL) {
      if (by == 1)
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "rank mesh: stage %d %s", s, what);
      else
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "rank mesh: the %d replicas of stage %d are not a multiple of the %s "
                     "degree %d",
                     R, s, what, by);
      return NULL;
    }
    if (stages_inside && R != replicas[0]) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "rank mesh: stages inside replicas need the same replicas on every stage "
                   "(stage 0 has %d, stage %d %d)",
                   replicas[0], s, R);
      return NULL;
    }
    slots += R;
  }
  if (slots * T > G_MAXINT) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "rank mesh: %" G_GINT64_FORMAT " replicas of %d GPUs are more ranks than %d",
                 slots, T, G_MAXINT);
    return NULL;
  }
  DtsMesh *m = g_new0 (DtsMesh, 1);
  m->S = S;
  m->T = T;
  m->C = C;
  m->EP = EP;
  m->stages_inside = stages_inside;
  m->replicas = g_memdup2 (replicas, sizeof (int) * S);
  m->slot0 = g_new (int, S);
  m->n_slots = (int) slots;
  for (int s = 0, sum = 0; s < S; s++) {
    m->slot0[s] = sum;
    sum += replicas[s];
  }
  /* at most slots x T groups of any kind: within G_MAXINT */
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++) {
    m->first[k] = g_new (int, S + 1);
    gint64 sum = 0;
    for (int s = 0; s < S; s++) {
      m->first[k][s] = (int) sum;
      sum += groups_per_stage (m, k, replicas[s]);
    }
    m->first[k][S] = (int) sum;
  }
  return m;
}

void
dts_mesh_free (DtsMesh *m)
{
  if (m == NULL)
    return;
  g_free (m->replicas);
  g_free (m->slot0);
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++)
    g_free (m->first[k]);
  g_free (m);
}

int
dts_mesh_n_ranks (const DtsMesh *m)
{
  return m->n_slots * m->T;
}

int
dts_mesh_group_size (const DtsMesh *m, DtsMeshGroup kind, int stage)
{
  g_return_val_if_fail (stage >= 0 && stage < m->S, 0);
  switch (kind) {
  case DTS_MESH_TENSOR:
    return m->T;
  case DTS_MESH_CONTEXT:
    return m->C;
  case DTS_MESH_DATA:
    return m->replicas[stage];
  case DTS_MESH_EXPERT:
    return m->EP;
  case DTS_MESH_EXPERT_DATA:
    return m->replicas[stage] / m->EP;
  default:
    g_return_val_if_reached (0);
  }
}

/* The slot (replica of a stage, a tensor group) of replica D of STAGE. */
static int
slot_of (const DtsMesh *m, int stage, int d)
{
  if (m->stages_inside)
    return d * m->S + stage;
  return m->slot0[stage] + d;
}

int
dts_mesh_rank (const DtsMesh *m, int stage, int d, int t)
{
  return slot_of (m, stage, d) * m->T + t;
}

gboolean
dts_mesh_coords (const DtsMesh *m, int rank, int *stage, int *d, int *t)
{
  if (rank < 0 || rank >= dts_mesh_n_ranks (m))
    return FALSE;
  int slot = rank / m->T, s;
  if (m->stages_inside)
    s = slot % m->S;
  else
    for (s = m->S - 1; m->slot0[s] > slot; s--)
      ;
  if (stage != NULL)
    *stage = s;
  if (d != NULL)
    *d = m->stages_inside ? slot / m->S : slot - m->slot0[s];
  if (t != NULL)
    *t = rank % m->T;
  return TRUE;
}

int
dts_mesh_n_groups (const DtsMesh *m, DtsMeshGroup kind)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, 0);
  return m->first[kind][m->S];
}

int
dts_mesh_first_group (const DtsMesh *m, DtsMeshGroup kind, int stage)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, 0);
  g_return_val_if_fail (stage >= 0 && stage <= m->S, 0);
  return m->first[kind][stage];
}

/* Group G of KIND within its stage: its outer index and tensor rank. */
static int
outer_of (const DtsMesh *m, DtsMeshGroup kind, int d, int t, int *tr)
{
  *tr = t;
  switch (kind) {
  case DTS_MESH_TENSOR:
    *tr = 0;
    return d;
  case DTS_MESH_CONTEXT:
    return d / m->C;
  case DTS_MESH_DATA:
    return 0;
  case DTS_MESH_EXPERT:
    return d / m->EP;
  case DTS_MESH_EXPERT_DATA:
    return d % m->EP;
  default:
    g_return_val_if_reached (0);
  }
}

int
dts_mesh_group_of (const DtsMesh *m, DtsMeshGroup kind, int stage, int d, int t)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, -1);
  int tr;
  int outer = outer_of (m, kind, d, t, &tr);
  if (kind == DTS_MESH_TENSOR)
    return m->first[kind][stage] + outer;
  return m->first[kind][stage] + outer * m->T + tr;
}

/* The stage of group G of KIND, its outer index and tensor rank. */
static int
locate (const DtsMesh *m, DtsMeshGroup kind, int g, int *outer, int *t)
{
  int s = m->S - 1;
  while (s > 0 && m->first[kind][s] > g)
    s--;
  int k = g - m->first[kind][s];
  if (kind == DTS_MESH_TENSOR) {
    *outer = k;
    *t = 0;
  } else {
    *outer = k / m->T;
    *t = k % m->T;
  }
  return s;
}

int
dts_mesh_group_members (const DtsMesh *m, DtsMeshGroup kind, int g, int *stage, int *members)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, 0);
  g_return_val_if_fail (g >= 0 && g < dts_mesh_n_groups (m, kind), 0);
  int outer, t;
  int s = locate (m, kind, g, &outer, &t);
  int n = dts_mesh_group_size (m, kind, s);
  if (stage != NULL)
    *stage = s;
  for (int k = 0; k < n; k++) {
    int d;
    switch (kind) {
    case DTS_MESH_TENSOR:
      members[k] = dts_mesh_rank (m, s, outer, k);
      continue;
    case DTS_MESH_CONTEXT:
      d = outer * m->C + k;
      break;
    case DTS_MESH_DATA:
      d = k;
      break;
    case DTS_MESH_EXPERT:
      d = outer * m->EP + k;
      break;
    case DTS_MESH_EXPERT_DATA:
    default:
      d = outer + k * m->EP;
      break;
    }
    members[k] = dts_mesh_rank (m, s, d, t);
  }
  return n;
}

char *
dts_mesh_group_name (const DtsMesh *m, DtsMeshGroup kind, int g)
{
  g_return_val_if_fail (kind >= 0 && kind < DTS_MESH_N_GROUPS, NULL);
  int outer, t;
  int s = locate (m, kind, g, &outer, &t);
  static const char *const prefix[DTS_MESH_N_GROUPS] = { "tp", "cp", "dp", "ep", "edp" };
  if (kind == DTS_MESH_TENSOR)
    return g_strdup_printf ("stage%d-tp%d", s, outer);
  if (kind == DTS_MESH_DATA)
    return m->T == 1 ? g_strdup_printf ("stage%d", s) : g_strdup_printf ("stage%d-dp%d", s, t);
  return m->T == 1 ? g_strdup_printf ("stage%d-%s%d", s, prefix[kind], outer)
                   : g_strdup_printf ("stage%d-%s%d-%d", s, prefix[kind], outer, t);
}

void
dts_mesh_describe (const DtsMesh *m, GString *out)
{
  gboolean ragged = FALSE;
  for (int s = 1; s < m->S; s++)
    ragged = ragged || m->replicas[s] != m->replicas[0];
  g_autoptr (GString) data = g_string_new (NULL);
  for (int s = 0; s < (ragged ? m->S : 1); s++)
    g_string_append_printf (data, "%s%d", s == 0 ? "" : ",", m->replicas[s] / m->C);
  if (m->stages_inside)
    g_string_append_printf (out, "mesh: tensor %d x pipeline %d x context %d x data %s",
                            m->T, m->S, m->C, data->str);
  else
    g_string_append_printf (out, "mesh: tensor %d x context %d x data %s x pipeline %d",
                            m->T, m->C, data->str, m->S);
  g_string_append_printf (out, " = %d ranks, innermost first (%s)", dts_mesh_n_ranks (m),
                          m->stages_inside ? "stages-inside" : "replicas-inside");
  if (m->EP > 1)
    g_string_append_printf (out, "; experts over %d of data x context", m->EP);
  g_string_append_c (out, '\n');
}
