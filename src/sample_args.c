// SPDX-License-Identifier: BSD-2-Clause
/*
 * -A: the arguments of the sample's calls. Each traced frame and each entry (or leaf) row
 * of the call trace gets the REC_FNARGS record of its call, found by the call's seq id;
 * a call whose record was lost gets one marked missing, so the views can say so. With -J,
 * each probe row gets its hit's context (REC_CTXARGS) the same way.
 */
#include <errno.h>
#include <string.h>
#include "arg_plan.h"
#include "sample_internal.h"

struct args_index {
	const struct sess_recs *r;
	struct sample_args **built;	/* per record, built on first use */
};

/* The record of the call entered with @seq, or -1 (records arrive in seq id order). */
static long find_rec(const struct sess_recs *r, __u32 seq)
{
	size_t lo = 0, hi = r->args_cnt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->args[mid]->seq_id < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->args_cnt && r->args[lo]->seq_id == seq ? (long)lo : -1;
}

/*
 * The arguments of the call of @func_id entered with @seq or, @probe, the context of
 * probe @func_id's hit @seq.
 */
static struct sample_args *args_of(struct sample *s, struct args_index *ix,
				   const struct sample_build_opts *o, int func_id, __u32 seq,
				   bool probe)
{
	const struct arg_plans *plans = probe ? o->probe_args : o->args;
	__u32 type = probe ? REC_CTXARGS : REC_FNARGS;
	const struct rec_fnargs *rec;
	struct sample_args *a;
	long k = find_rec(ix->r, seq);
	__u8 *data;

	if (k >= 0 && ix->built[k])
		return ix->built[k];
	a = sample_pool__alloc(s->pool, sizeof(*a));
	if (!a)
		return NULL;
	memset(a, 0, sizeof(*a));
	rec = k >= 0 ? ix->r->args[k] : NULL;
	if (!rec || rec->type != type || (int)rec->func_id != func_id ||
	    !(a->plan = arg_plans__get(plans, func_id))) {
		a->missing = true;
		a->plan = NULL;
		return a;
	}
	a->raw_ptrs = rec->flags & FNARGS_F_RAW_PTRS;
	a->ptr_mask = rec->ptr_mask;
	a->arg_cnt = rec->arg_cnt < MAX_FNARGS ? rec->arg_cnt : MAX_FNARGS;
	memcpy(a->lens, rec->lens, sizeof(a->lens));
	a->data_len = rec->data_len;
	data = sample_pool__alloc(s->pool, rec->data_len ?: 1);
	if (!data)
		return NULL;
	memcpy(data, rec->data, rec->data_len);
	a->data = data;
	ix->built[k] = a;
	return a;
}

int sample__build_args(struct sample *s, const struct sess_recs *r,
		       const struct sample_build_opts *o)
{
	struct args_index ix = { .r = r };
	size_t i;

	s->has_args = true;
	ix.built = sample_pool__alloc(s->pool, (r->args_cnt ?: 1) * sizeof(*ix.built));
	if (!ix.built)
		return -ENOMEM;
	memset(ix.built, 0, (r->args_cnt ?: 1) * sizeof(*ix.built));
	for (i = 0; i < s->frame_cnt; i++) {
		struct sample_frame *f = &s->frames[i];

		if (f->func_id < 0)
			continue;
		f->args = args_of(s, &ix, o, f->func_id, f->seq_id, false);
		if (!f->args)
			return -ENOMEM;
	}
	for (i = 0; i < s->row_cnt; i++) {
		struct trace_row *row = &s->rows[i];

		if (row->kind == TRACE_PROBE && o->probe_args && row->probe_id >= 0)
			row->args = args_of(s, &ix, o, row->probe_id, row->seq_id, true);
		else if (row->kind == TRACE_ENTRY || row->kind == TRACE_LEAF)
			row->args = args_of(s, &ix, o, row->func_id, row->seq_id, false);
		else
			continue;
		if (!row->args)
			return -ENOMEM;
	}
	return 0;
}
