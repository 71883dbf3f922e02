// SPDX-License-Identifier: BSD-2-Clause
/*
 * From one session's records to the decoded sample: identity and times, the stack view's
 * frames (sample_stack.c), the -T call-trace rows and the LBR records with their relevance.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "result_fmt.h"
#include "sample_internal.h"

/* Pool copies of an image's strings; -ENOMEM or 0. */
static int copy_image(struct sample *s, struct code_image *dst, const struct code_image *src)
{
	*dst = *src;
	if (src->path && !(dst->path = sample_pool__strdup(s->pool, src->path)))
		return -ENOMEM;
	if (src->build_id && !(dst->build_id = sample_pool__strdup(s->pool, src->build_id)))
		return -ENOMEM;
	return 0;
}

static int put_src(struct sample *s, struct code_loc *loc, const struct src_frame *fr, int n,
		   const char *note);

int sample__resolve(struct sample *s, const struct sample_build_opts *o,
		    const struct addr_space *as, struct code_loc *loc, __u64 addr, enum src_at at)
{
	struct src_frame fr[MAX_SRC_FRAMES];
	const char *note = NULL;
	struct sym_hit hit = {};
	int n, err;

	loc->as = *as;
	loc->addr = addr;
	if (o->syms.sym && o->syms.sym(o->syms.ctx, as, addr, &hit)) {
		err = copy_image(s, &loc->image, &hit.image);
		if (err)
			return err;
		if (hit.name) {
			loc->sym = sample_pool__strdup(s->pool, hit.name);
			if (!loc->sym)
				return -ENOMEM;
			loc->sym_start = hit.start;
			loc->sym_size = hit.size;
		}
	}
	/* user code without a symbol (a stripped binary) may still have DWARF lines */
	if (at == SRC_NONE || !o->syms.src || (!loc->sym && !loc->image.path))
		return 0;
	n = o->syms.src(o->syms.ctx, as, at == SRC_AT_CALL ? addr - 1 : addr, fr,
			MAX_SRC_FRAMES, &note);
	return put_src(s, loc, fr, n, note);
}

int sample__resolve_image(struct sample *s, const struct sample_build_opts *o,
			  struct code_loc *loc)
{
	struct src_frame fr[MAX_SRC_FRAMES];
	const char *note = NULL;
	int n;

	if (!o->syms.image_src || !loc->image.path)
		return 0;
	n = o->syms.image_src(o->syms.ctx, loc->image.path, loc->image.file_off, fr,
			      MAX_SRC_FRAMES, &note);
	return put_src(s, loc, fr, n, note);
}

/* A lookup's answer into @loc: @n frames (pool copies), or why there are none. */
static int put_src(struct sample *s, struct code_loc *loc, const struct src_frame *fr, int n,
		   const char *note)
{
	struct src_frame *src;
	int i;

	/* never a silently poorer frame: a lookup cut short is said where it shows */
	if (n == -EINTR)
		note = SRC_NOTE_CUT;
	if (n <= 0) {
		if (note && !(loc->src_note = sample_pool__strdup(s->pool, note)))
			return -ENOMEM;
		return 0;
	}
	if (n > MAX_SRC_FRAMES)
		n = MAX_SRC_FRAMES;
	src = sample_pool__alloc(s->pool, n * sizeof(*src));
	if (!src)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		src[i].func = sample_pool__strdup(s->pool, fr[i].func ?: "??");
		src[i].file = sample_pool__strdup(s->pool, fr[i].file ?: "??");
		if (!src[i].func || !src[i].file)
			return -ENOMEM;
		src[i].line = fr[i].line;
		src[i].col = fr[i].col;
	}
	loc->src = src;
	loc->src_cnt = n;
	return 0;
}

/* The same error: errnos agree in their low 32 bits, for int, long and ERR_PTR() alike. */
static bool same_error(__s64 a, __s64 b)
{
	return (__s32)a == (__s32)b;
}

/*
 * The '!' and '^' markers (struct sample_frame). The error to follow is the one the
 * outermost returned traced frame failed with: the entry function's in a final sample,
 * the chain's top in an interim one. A deeper chain whose error differs stays in view,
 * since it is often why the caller failed, but the '!' is not on it.
 */
/*
 * In-band errors: the error to follow is the one handed to the carrier, from the carrier's
 * level down; the carrier's callers returned something else. Without a chain below that
 * level, the carrier's caller made the error.
 */
static void mark_origin(struct sample *s)
{
	struct sample_frame *origin = NULL, *caller = NULL;
	bool have_err = s->inband, run_over = false;
	__s64 err = s->inband ? s->inband_err : 0;
	int level = 0;
	size_t i;

	if (!s->is_err)
		return;
	for (i = 0; i < s->frame_cnt; i++) {
		struct sample_frame *f = &s->frames[i];

		if (f->func_id >= 0 && s->inband && level++ < s->inband_level) {
			caller = f;
			continue;
		}
		/* a frame left by longjmp() or an exception carried the error up unseen */
		if (f->func_id < 0 || f->running || f->no_return)
			continue;
		if (!have_err) {
			if (!f->failed)
				return;
			err = f->res;
			have_err = true;
		}
		if (!run_over && f->failed && same_error(f->res, err)) {
			origin = f;
			continue;
		}
		/*
		 * Across the syscall: a user function's -1 with errno E is the kernel's -E
		 * below it; the chain goes on with the kernel's error.
		 */
		if (!run_over && f->failed && origin && origin->sys_err &&
		    !(sample__func(s, f->func_id)->flags & FUNC_USER) &&
		    same_error(f->res, -origin->sys_err)) {
			err = f->res;
			origin = f;
			continue;
		}
		run_over = true;
		f->replaced = f->failed;
	}
	if (!origin && s->inband && level <= s->inband_level)
		origin = caller;
	if (origin)
		origin->origin = true;
}

/*
 * A session its thread's exit cut (exit_cut.bpf.h): the exit, from the outermost frame
 * (always one of those cut), in words for the stack view, -T and JSON.
 */
static int exit_why(struct sample *s)
{
	char buf[sizeof(s->exit_noret) - sizeof(": no return seen")];
	__u64 res = 0;
	int sig;
	size_t i;

	for (i = 0; i < s->frame_cnt; i++) {
		if (s->frames[i].exit_cut) {
			res = s->frames[i].res;
			break;
		}
	}
	s->exit_own = res & NORET_EXIT_OWN;
	s->exit_code = res & NORET_EXIT_CODE;
	sig = s->exit_code & 0x7f;
	if (sig)
		snprintf(buf, sizeof(buf), "the process was killed by signal %d (%s)", sig,
			 strsignal(sig));
	else if (s->exit_own)
		snprintf(buf, sizeof(buf), "the thread exited with status %d",
			 s->exit_code >> 8 & 0xff);
	else
		snprintf(buf, sizeof(buf), "the thread ended with its process (exit status %d)",
			 s->exit_code >> 8 & 0xff);
	snprintf(s->exit_noret, sizeof(s->exit_noret), "%s: no return seen", buf);
	s->exit_why = sample_pool__strdup(s->pool, buf);
	return s->exit_why ? 0 : -ENOMEM;
}

static bool func_failed(const struct sample *s, int func_id, __s64 res)
{
	return result__is_err(res, sample__func(s, func_id)->flags);
}

/*
 * -T: every entry and exit, a leaf call folded into one row, injected probe hits where
 * they came, lost records as a gap row.
 */
/*
 * The errno of the syscall under a failed traced user call, as the stack view has it on
 * that call's frame (the same call: its entry's sequence number), so -T says it too.
 */
static int call_sys_err(const struct sample *s, int func_id, __u32 entry_seq)
{
	size_t i;

	for (i = 0; i < s->frame_cnt; i++) {
		const struct sample_frame *f = &s->frames[i];

		if (f->func_id == func_id && f->func_id >= 0 && f->seq_id == entry_seq)
			return f->sys_err;
	}
	return 0;
}

/*
 * Calls left by longjmp() or an exception have an entry row and no exit: a record at level
 * @depth (an entry there, or an exit above it: @exit) means the calls still open at deeper
 * levels never returned. Their exit rows say so, innermost first, as they were left.
 * Nothing is concluded once records were lost: a lost exit looks the same.
 */
struct open_calls {
	int func_id[MAX_FSTACK_DEPTH + 1];	/* by level; -1: none open */
	__u32 seq[MAX_FSTACK_DEPTH + 1];
	bool lost;
};

static size_t close_left_calls(struct sample *s, struct open_calls *oc, size_t n, __u32 depth,
			       bool exit, __u64 ts)
{
	__u32 lvl;

	for (lvl = MAX_FSTACK_DEPTH; lvl > depth || (!exit && lvl == depth); lvl--) {
		struct trace_row *row;

		if (lvl == 0)
			break;
		if (oc->func_id[lvl] < 0)
			continue;
		if (!oc->lost) {
			row = &s->rows[n++];
			row->kind = TRACE_EXIT;
			row->func_id = oc->func_id[lvl];
			row->depth = lvl;
			row->seq_id = oc->seq[lvl];
			row->ts = ts;
			row->no_return = true;
			/* still open at the end of a session its thread's exit cut */
			row->exit_cut = s->exited && depth == 0;
		}
		oc->func_id[lvl] = -1;
	}
	return n;
}

static int build_trace(struct sample *s, const struct sess_recs *r)
{
	const struct rec_func_trace *t = r->trace;
	__u32 next_seq = 0;	/* a session's records are numbered from 0 */
	__u32 entry_seq[MAX_FSTACK_DEPTH + 1] = {}, d;	/* by depth: the running call's entry */
	struct open_calls oc;
	size_t k, n = 0;

	s->has_trace = true;
	oc.lost = false;
	for (d = 0; d <= MAX_FSTACK_DEPTH; d++)
		oc.func_id[d] = -1;
	/* at most one gap row and one exit of a call left without return per record */
	s->rows = sample_pool__alloc(s->pool, (3 * r->trace_cnt + 1) * sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (k = 0; k < r->trace_cnt; k++) {
		const struct rec_func_trace *e = &t[k];
		struct trace_row *row;
		bool leaf;

		if (e->seq_id != next_seq) {
			oc.lost = true;
			row = &s->rows[n++];
			row->kind = TRACE_GAP;
			row->func_id = -1;
			row->seq_id = next_seq;
			row->missing = e->seq_id - next_seq;
		}
		next_seq = e->seq_id + 1;

		if (e->type == REC_INJ_PROBE) {
			row = &s->rows[n++];
			row->kind = TRACE_PROBE;
			row->func_id = -1;
			row->probe_id = e->func_id < s->probe_cnt ? (int)e->func_id : -1;
			row->depth = e->depth;
			row->seq_id = e->seq_id;
			row->ts = e->ts;
			continue;
		}
		leaf = e->type == REC_FUNC_TRACE_ENTRY && k + 1 < r->trace_cnt &&
		       t[k + 1].type == REC_FUNC_TRACE_EXIT && t[k + 1].func_id == e->func_id &&
		       t[k + 1].depth == e->depth && t[k + 1].seq_id == e->seq_id + 1;
		n = close_left_calls(s, &oc, n, e->depth, e->type == REC_FUNC_TRACE_EXIT, e->ts);
		row = &s->rows[n++];
		row->kind = leaf ? TRACE_LEAF :
			    e->type == REC_FUNC_TRACE_ENTRY ? TRACE_ENTRY : TRACE_EXIT;
		row->func_id = sample__func_id(s, e->func_id);
		row->depth = e->depth;
		row->seq_id = e->seq_id;
		row->ts = e->ts;
		d = e->depth <= MAX_FSTACK_DEPTH ? e->depth : 0;
		if (row->kind == TRACE_ENTRY) {
			entry_seq[d] = e->seq_id;
			oc.func_id[d] = row->func_id;
			oc.seq[d] = e->seq_id;
		} else if (row->kind == TRACE_EXIT) {
			oc.func_id[d] = -1;
		}
		if (leaf) {
			e = &t[++k];
			next_seq = e->seq_id + 1;
		}
		if (e->type == REC_FUNC_TRACE_EXIT) {
			row->dur_ns = e->func_lat;
			row->res = e->func_res;
			row->failed = func_failed(s, row->func_id, e->func_res);
			if (row->failed && d)
				row->sys_err = call_sys_err(s, row->func_id,
							    leaf ? row->seq_id : entry_seq[d]);
		}
	}
	/* a session is over when its entry call is: calls still open were left */
	if (s->kind == SAMPLE_FINAL && r->trace_cnt)
		n = close_left_calls(s, &oc, n, 0, true, t[r->trace_cnt - 1].ts);
	s->row_cnt = n;
	return 0;
}

/*
 * Which LBR records matter: the oldest ones down to the last branch that touched the
 * deepest traced function; the more recent ones were taken inside retsnoop's own probe
 * machinery after that function returned.
 */
static void lbr_relevance(struct sample *s, const struct sample_build_opts *o)
{
	const struct addr_space kernel = ADDR_SPACE_KERNEL_INIT;
	const struct func *f;
	struct sym_hit hit = {};
	size_t i;

	s->lbr_first = 0;
	s->lbr_relevant = true;
	if (o->view.full_lbr || o->view.unfiltered || s->deepest < 0)
		return;
	f = sample__func(s, s->frames[s->deepest].func_id);
	if (!f->addr || !o->syms.sym || !o->syms.sym(o->syms.ctx, &kernel, f->addr, &hit) ||
	    !hit.size)
		return;		/* size unknown: hide nothing, quietly */
	for (i = 0; i < s->lbr_cnt; i++) {
		__u64 from = s->lbrs[i].from.addr, to = s->lbrs[i].to.addr;

		if ((from >= hit.start && from < hit.start + hit.size) ||
		    (to >= hit.start && to < hit.start + hit.size)) {
			s->lbr_first = i;
			return;
		}
	}
	s->lbr_relevant = false;
}

static int build_lbr(struct sample *s, const struct sess_recs *r,
		     const struct sample_build_opts *o)
{
	const struct addr_space kernel = ADDR_SPACE_KERNEL_INIT;
	const struct rec_lbr_stack *l = r->lbr;
	size_t i, n;
	int err;

	s->has_lbr = true;
	if (!l) {
		s->lbr_missing = true;
		return 0;
	}
	if (l->lbrs_sz < 0) {
		s->lbr_err = l->lbrs_sz;
		return 0;
	}
	n = l->lbrs_sz / sizeof(struct lbr_record);
	if (n > MAX_LBR_ENTRIES)
		n = MAX_LBR_ENTRIES;
	s->lbrs = sample_pool__alloc(s->pool, (n ?: 1) * sizeof(*s->lbrs));
	if (!s->lbrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct sample_lbr *b = &s->lbrs[i];

		b->flags = l->lbrs[i].flags;
		/* branch ends are exact addresses, not return addresses */
		if ((err = sample__resolve(s, o, &kernel, &b->from, l->lbrs[i].from, SRC_AT_ADDR)) ||
		    (err = sample__resolve(s, o, &kernel, &b->to, l->lbrs[i].to, SRC_AT_ADDR)))
			return err;
	}
	s->lbr_cnt = n;
	lbr_relevance(s, o);
	return 0;
}

/* Collects the unwinder's frames, innermost first as they come, resolved as they come. */
struct ustack_collect {
	struct sample *s;
	const struct sample_build_opts *o;
	struct code_loc *locs;
	size_t cnt, cap;
};

/*
 * A session of user-space functions ends in a probe on one of them, so its registers are
 * a uprobe trap's: at a traced function's first instruction (a call that found the entry
 * frame left by longjmp()), else at a uretprobe, whose pc is the return address in the
 * caller: the innermost frame's line is then its call's too, as for any return address.
 */
static bool at_user_return(const struct sample *s, const struct ustack_frame *f)
{
	const struct func *fn;
	size_t i;

	if (!s->frame_cnt || s->frames[0].func_id < 0)
		return false;
	fn = sample__func(s, s->frames[0].func_id);
	if (!(fn->flags & FUNC_USER) || !f->image.path)
		return false;
	for (i = 0; i < s->func_cnt; i++) {
		fn = &s->funcs[i];
		if ((fn->flags & FUNC_USER) && fn->image && fn->image_off == f->image.file_off &&
		    strcmp(fn->image, f->image.path) == 0)
			return false;
	}
	return true;
}

static int collect_uframe(void *ctx, const struct ustack_frame *f)
{
	struct ustack_collect *c = ctx;
	const struct addr_space as = { .kind = ADDR_SPACE_USER, .pid = f->tgid };
	struct code_loc *loc;
	int err;

	if (c->cnt == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		void *tmp = realloc(c->locs, ncap * sizeof(*c->locs));

		if (!tmp)
			return -ENOMEM;
		c->locs = tmp;
		c->cap = ncap;
	}
	loc = &c->locs[c->cnt++];
	memset(loc, 0, sizeof(*loc));
	/* the unwinder's view of the file, unless the symbols object knows better */
	err = copy_image(c->s, &loc->image, &f->image);
	if (err)
		return err;
	loc->fp_guess = f->guessed;
	/* the same symbols and lines as any address: a return address' line is its call's */
	err = sample__resolve(c->s, c->o, &as, loc, f->pc,
			      f->activation && !(c->cnt == 1 && at_user_return(c->s, f)) ?
			      SRC_AT_ADDR : SRC_AT_CALL);
	if (!err && f->anon_code && !loc->image.path && !loc->src_note)
		loc->src_note = SRC_NOTE_JIT;
	return err;
}

static int build_ustack(struct sample *s, const struct sess_recs *r,
			const struct sample_build_opts *o)
{
	struct ustack_collect c = { .s = s, .o = o };
	const char *note = NULL;
	size_t i;
	int err;

	s->has_ustack = true;
	if (!r->ustack) {
		s->ustack_missing = true;
		return 0;
	}
	s->ustack_late = r->ustack->flags & USTACK_F_LATE;
	if (!o->ustacks.unwind) {
		s->ustack_note = "no unwinder";
		return 0;
	}
	err = o->ustacks.unwind(o->ustacks.ctx, r->ustack, r->ustack_size, collect_uframe, &c,
				&note);
	if (!err && c.cnt)
		s->uframes = sample_pool__alloc(s->pool, c.cnt * sizeof(*s->uframes));
	if (!err && c.cnt && !s->uframes)
		err = -ENOMEM;
	/* the model keeps stacks outermost first */
	for (i = 0; !err && i < c.cnt; i++)
		s->uframes[i] = c.locs[c.cnt - 1 - i];
	free(c.locs);
	if (err)
		return err;
	s->uframe_cnt = c.cnt;
	if (note && !(s->ustack_note = sample_pool__strdup(s->pool, note)))
		return -ENOMEM;
	return 0;
}

static void copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, TASK_COMM_LEN);
	dst[TASK_COMM_LEN] = '\0';
}

int sample__build(const struct sess_recs *r, const struct sample_build_opts *o,
		  struct sample **out)
{
	struct sample_build_opts bo;
	struct sample_pool *pool;
	struct sample *s;
	int err;

	*out = NULL;
	if (OPTS_COPY(&bo, o) || !r || !r->start || !r->end)
		return -EINVAL;
	o = &bo;
	pool = sample_pool__new();
	if (!pool)
		return -ENOMEM;
	s = sample_pool__alloc(pool, sizeof(*s));
	if (!s) {
		sample_pool__free(pool);
		return -ENOMEM;
	}
	s->pool = pool;
	s->sess_id = r->start->sess_id;
	s->tid = r->start->pid;
	s->pid = r->start->tgid;
	copy_comm(s->task_comm, r->start->task_comm);
	copy_comm(s->proc_comm, r->start->proc_comm);
	s->start_ns = r->start->start_ts;
	s->end_ns = r->end->emit_ts;
	s->clock_off_ns = o->clock_off_ns;
	s->is_err = r->end->is_err;
	s->kind = !r->interim ? SAMPLE_FINAL :
		  r->end->type == REC_SESSION_PROBE ? SAMPLE_PROBE : SAMPLE_STITCH;
	s->probe_id = -1;
	if (s->kind == SAMPLE_PROBE && r->interim->probe_id >= 0 &&
	    (size_t)r->interim->probe_id < o->probe_cnt)
		s->probe_id = r->interim->probe_id;
	s->funcs = o->funcs;
	s->probes = o->probes;
	s->probe_cnt = o->probe_cnt;
	/* ids are kept as int in the model */
	s->func_cnt = o->func_cnt < INT_MAX ? o->func_cnt : INT_MAX;
	s->dropped_records = r->end->dropped_records;
	s->trace_lost = r->trace_lost;
	s->args_lost = r->args_lost;
	if (r->inband) {
		s->inband = true;
		s->inband_func = sample__func_id(s, r->inband->probe_id);
		s->inband_err = r->inband->err;
		s->inband_level = r->inband->end.stack.depth;
	}
	s->chain_lost = r->end->flags & SESS_F_CHAIN_LOST;
	s->truncated = r->end->flags & SESS_F_TRUNCATED;
	s->passed_on = r->end->flags & SESS_F_PASSED_ON;
	s->exited = s->kind == SAMPLE_FINAL && (r->end->flags & SESS_F_EXITED);

	err = sample__build_stack(s, r->end, o);
	if (!err && s->exited)
		err = exit_why(s);
	if (!err)
		mark_origin(s);
	if (!err && o->view.func_trace)
		err = build_trace(s, r);
	if (!err && o->view.lbr)
		err = build_lbr(s, r, o);
	if (!err && o->args)
		err = sample__build_args(s, r, o);
	if (!err && o->ustack)
		err = build_ustack(s, r, o);
	if (err) {
		sample__free(s);
		return err;
	}
	*out = s;
	return 0;
}

void sample__free(struct sample *s)
{
	if (s)
		sample_pool__free(s->pool);
}
