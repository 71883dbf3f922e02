// SPDX-License-Identifier: BSD-2-Clause
/*
 * The "unwind" request (PROTOCOL.md): a captured user stack unwound over the images the
 * client handed over ("open"), each mapping naming its image by id. The sandboxed sidecar
 * opens no file itself: the unwinder gets a duplicate of the image's descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "server_int.h"
#include "unwind_req.h"

/* A line's TAB-separated field: "" for NULL, control characters replaced. */
static int buf_opt_field(struct reply_buf *b, const char *s)
{
	return buf_printf(b, "\t") ?: buf_field(b, s ?: "");
}

/*
 * libdwfl owns (and closes) what it is given: a duplicate of the image's descriptor. A
 * mapping without an image is tried by its path, which only a sidecar without its seccomp
 * filter (-S, the sanitized test builds) can open.
 */
static int image_fd(void *ctx, const struct unwind_map *m)
{
	struct server *srv = ctx;
	int fd;

	if (!m->image_id)
		return m->path ? open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	fd = images__fd(srv->images, m->image_id);
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

int do_unwind(struct server *srv, const char *arg, size_t len, struct reply_buf *b)
{
	struct unwind_opts opts = {
		/*
		 * addresses and images only: the client resolves each frame's address the
		 * way it resolves every other (fsym/fline), debug files included
		 */
		.sz = sizeof(opts), .open_image = image_fd, .ctx = srv,
	};
	struct unwind_result res;
	struct unwind_req *req;
	size_t i;
	int err;

	if (!srv->unwinder && (err = unwinder__new(&opts, &srv->unwinder)))
		return reply_err(b, err, "cannot unwind: %s", strerror(-err));
	err = unwind_req__parse(arg, len, &req);
	if (err)
		return reply_err(b, err, "malformed unwind request");
	err = unwinder__run(srv->unwinder, &req->in, &res);
	if (err) {
		unwind_req__free(req);
		return reply_err(b, err, "cannot unwind: %s", strerror(-err));
	}
	err = buf_printf(b, "ok %zu\n", res.cnt + !!res.stop);
	for (i = 0; i < res.cnt && !err; i++) {
		const struct unwind_frame *f = &res.frames[i];

		err = buf_printf(b, "frame\t%llx\t%c\t%llx\t%llx", (unsigned long long)f->pc,
				 f->activation ? 'a' : f->guessed ? 'g' : 'r', (unsigned long long)f->vaddr,
				 (unsigned long long)f->file_off) ?:
		      buf_opt_field(b, f->build_id) ?: buf_opt_field(b, f->module) ?:
		      buf_opt_field(b, f->sym) ?:
		      buf_printf(b, "\t%llx", (unsigned long long)f->sym_off) ?:
		      buf_opt_field(b, f->file) ?:
		      buf_printf(b, "\t%d\t%d", f->file ? f->line : 0, f->file ? f->col : 0) ?:
		      buf_opt_field(b, f->file ? NULL : f->no_lines) ?: buf_printf(b, "\n");
	}
	if (!err && res.stop)
		err = buf_printf(b, "stop") ?: buf_opt_field(b, res.stop) ?: buf_printf(b, "\n");
	unwind_req__free(req);
	return err;
}

void server_unwind__free(struct server *srv)
{
	unwinder__free(srv->unwinder);
	srv->unwinder = NULL;
}
