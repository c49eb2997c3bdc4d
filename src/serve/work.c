/*
 * work.c - the render pool's side of a request.  Drawing (an upload's
 * set, a view, a diff) runs on a bounded pool of render workers while the
 * connection is suspended; the worker resumes it, and the next call of the
 * handler answers with what the work left in the request.  A full queue is
 * a 503 at once.
 */
#include <string.h>

#include "server.h"

static void job(void *arg)
{
	req *r = arg;

	if (r->kind == K_UPLOAD && r->upload == U_MAPPING)
		ingest_mapping(r->sv, r);
	else if (r->kind == K_UPLOAD)
		ingest(r->sv, r);
	else if (r->kind == K_DIFF)
		render_diff(r->sv, r);
	else if (r->kind == K_METHODS)
		render_methods(r->sv, r);
	else
		render_view(r->sv, r);
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	MHD_resume_connection(r->conn);
}

/* Hands `r` to a render worker, the connection suspended meanwhile; a
 * full queue is answered 503 now. */
enum MHD_Result submit(req *r)
{
	r->queued = 1;
	watch_busy(r->sv->watch, r->watched, 1);
	MHD_suspend_connection(r->conn);
	if (pool_submit(r->sv->workers, job, r) != 0) {
		MHD_resume_connection(r->conn);
		r->queued = 0;
		return send_error(r, 503, "the server is busy drawing other traces: try again in "
		                          "a few seconds");
	}
	return MHD_YES;
}

/* The answer of finished work. */
enum MHD_Result answer(req *r)
{
	const char *msg = r->rbody ? r->rbody : "";

	if (r->rstatus == 303)
		return send_redirect(r, 303, r->location);
	if (r->rstatus != 200)
		return send_error(r, r->rstatus, msg);
	if (r->kind == K_DIFF)
		return send_file(r, r->file, "image/svg+xml", NULL);
	if (r->kind == K_METHODS)
		return send_inline_page(r, r->file);
	if (r->want_json)
		return send_buf(r, 200, "application/json", msg, strlen(msg));
	return send_redirect(r, 303, r->location);
}
