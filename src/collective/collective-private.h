/* collective-private.h - shared by the algorithm files of src/collective. */
#ifndef DTS_COLLECTIVE_PRIVATE_H
#define DTS_COLLECTIVE_PRIVATE_H

#include "collective/collective.h"

G_BEGIN_DECLS

DtsCollPlan *dts_coll_ring_plan_new (const DtsCollParams *params, GError **error);
DtsCollPlan *dts_coll_ps_plan_new (const DtsCollParams *params, GError **error);

G_END_DECLS

#endif
