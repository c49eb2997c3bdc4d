/*
 * make_samples.c - writes the bundled sample traces with the project's own
 * writer: a made-up Android app starting up, recorded by ART (regular and
 * streaming) and by an old Dalvik (data version 1, thread-cpu clock).
 *
 *   make_samples OUTDIR
 *
 * The program is fixed and the random choices come from a seeded generator,
 * so the bytes are the same on every run (a test checks samples/ is current).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/writer.h"

typedef struct method {
	const char *cls, *name, *sig, *file;
	int self_us;     /* typical self time per call */
	int off_cpu;     /* share of wall time spent blocked, in percent */
	const char *calls; /* callees: indices into methods, as letters */
} method;

/* Letters name callees: 'a' is methods[0], 'b' methods[1], ... */
static const method methods[] = {
	/* a */ {"android.app.ActivityThread", "main", "([Ljava/lang/String;)V", "ActivityThread.java", 5, 0, "b"},
	/* b */ {"android.os.Looper", "loop", "()V", "Looper.java", 10, 0, "cdcdcdcdcz"},
	/* c */ {"android.os.MessageQueue", "next", "()Landroid/os/Message;", "MessageQueue.java", 20, 0, "e"},
	/* d */ {"android.os.Handler", "dispatchMessage", "(Landroid/os/Message;)V", "Handler.java", 15, 0, "fgh"},
	/* e */ {"android.os.MessageQueue", "nativePollOnce", "(JI)V", "MessageQueue.java", 4000, 95, ""},
	/* f */ {"android.app.ActivityThread$H", "handleMessage", "(Landroid/os/Message;)V", "ActivityThread.java", 10, 0, "i"},
	/* g */ {"android.view.Choreographer$FrameDisplayEventReceiver", "run", "()V", "Choreographer.java", 10, 0, "j"},
	/* h */ {"com.example.shop.ui.CartViewModel$load$1", "invokeSuspend", "(Ljava/lang/Object;)Ljava/lang/Object;", "CartViewModel.kt", 60, 0, "uv"},
	/* i */ {"android.app.ActivityThread", "handleLaunchActivity", "(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/app/servertransaction/PendingTransactionActions;Landroid/content/Intent;)Landroid/app/Activity;", "ActivityThread.java", 30, 0, "k"},
	/* j */ {"android.view.Choreographer", "doFrame", "(JI)V", "Choreographer.java", 25, 0, "lm"},
	/* k */ {"com.example.shop.MainActivity", "onCreate", "(Landroid/os/Bundle;)V", "MainActivity.kt", 120, 0, "nopq"},
	/* l */ {"android.view.ViewRootImpl", "performTraversals", "()V", "ViewRootImpl.java", 40, 0, "rst"},
	/* m */ {"android.animation.AnimationHandler", "doAnimationFrame", "(J)V", "AnimationHandler.java", 30, 0, ""},
	/* n */ {"androidx.appcompat.app.AppCompatActivity", "setContentView", "(I)V", "AppCompatActivity.java", 20, 0, "w"},
	/* o */ {"com.example.shop.data.ProductRepository", "<init>", "(Landroid/content/Context;)V", "ProductRepository.kt", 80, 0, "xy"},
	/* p */ {"com.example.shop.analytics.Tracker", "logEvent", "(Ljava/lang/String;Ljava/util/Map;)V", "Tracker.kt", 150, 0, "y"},
	/* q */ {"kotlinx.coroutines.BuildersKt", "launch", "(Lkotlinx/coroutines/CoroutineScope;)Lkotlinx/coroutines/Job;", "Builders.kt", 40, 0, ""},
	/* r */ {"android.view.View", "measure", "(II)V", "View.java", 35, 0, "rr"},
	/* s */ {"android.view.View", "layout", "(IIII)V", "View.java", 25, 0, "ss"},
	/* t */ {"android.view.View", "draw", "(Landroid/graphics/Canvas;)V", "View.java", 45, 0, "tA"},
	/* u */ {"com.example.shop.data.ProductRepository", "loadCart", "()Ljava/util/List;", "ProductRepository.kt", 90, 0, "yB"},
	/* v */ {"androidx.recyclerview.widget.RecyclerView$Adapter", "notifyDataSetChanged", "()V", "RecyclerView.java", 70, 0, ""},
	/* w */ {"android.view.LayoutInflater", "inflate", "(ILandroid/view/ViewGroup;Z)Landroid/view/View;", "LayoutInflater.java", 200, 0, "ww"},
	/* x */ {"android.database.sqlite.SQLiteDatabase", "openDatabase", "(Ljava/lang/String;)Landroid/database/sqlite/SQLiteDatabase;", "SQLiteDatabase.java", 1500, 70, ""},
	/* y */ {"java.lang.Object", "wait", "(J)V", "Object.java", 800, 100, ""},
	/* z */ {"android.os.Trace", "traceCounter", "(JLjava/lang/String;I)V", "Trace.java", 5, 0, ""},
	/* A */ {"android.graphics.RecordingCanvas", "drawText", "(Ljava/lang/String;FFLandroid/graphics/Paint;)V", "RecordingCanvas.java", 12, 0, ""},
	/* B */ {"com.example.shop.data.Json", "parse", "(Ljava/lang/String;)Ljava/lang/Object;", "Json.kt", 300, 0, "B"},
	/* C */ {"java.lang.Thread", "run", "()V", "Thread.java", 5, 0, "D"},
	/* D */ {"java.util.concurrent.ThreadPoolExecutor$Worker", "run", "()V", "ThreadPoolExecutor.java", 10, 0, "uyuBy"},
	/* E */ {"android.view.ThreadedRenderer", "nSyncAndDrawFrame", "(J[JI)I", "ThreadedRenderer.java", 900, 40, ""},
	/* F */ {"android.graphics.HardwareRenderer$FrameRenderRequest", "syncAndDraw", "()V", "HardwareRenderer.java", 20, 0, "EEE"},
};

#define NMETHODS (sizeof methods / sizeof methods[0])

static uint32_t rng = 20261123u;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static int index_of(char c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' : c - 'A' + 26;
}

typedef struct clocks {
	uint32_t cpu, wall;
} clocks;

static int emit(af_writer *w, uint32_t tid, int m, int action, clocks *c)
{
	return af_writer_record(w, tid, (uint32_t)m * 4, action, c->cpu, c->wall);
}

/* Spends a method's self time: wall always, cpu unless blocked. */
static void spend(const method *m, clocks *c)
{
	uint32_t us = (uint32_t)m->self_us / 2 + next_random() % (uint32_t)(m->self_us + 1);
	c->wall += us;
	c->cpu += us * (uint32_t)(100 - m->off_cpu) / 100;
}

/* Calls method `m` at `depth`; recursive methods stop at a small depth. */
static int call(af_writer *w, uint32_t tid, int m, int depth, clocks *c)
{
	const char *k;

	if (emit(w, tid, m, AF_ENTER, c))
		return -1;
	spend(&methods[m], c);
	for (k = methods[m].calls; *k; k++) {
		int callee = index_of(*k);
		if (depth > 14 || (callee == m && depth > 6) || next_random() % 8 == 0)
			continue;
		if (call(w, tid, callee, depth + 1, c))
			return -1;
		spend(&methods[m], c);
	}
	return emit(w, tid, m, AF_EXIT, c);
}

static int write_program(af_writer *w, int dalvik)
{
	static const struct {
		uint32_t tid;
		const char *name;
		int root, loops;
	} threads[] = {
		{1, "main", 0, 12},
		{2, "RenderThread", 31, 40},
		{3, "pool-1-thread-1", 28, 16},
		{4, "pool-1-thread-2", 28, 12},
		{5, "\xe5\x90\x8e\xe5\x8f\xb0 sync \xf0\x9f\x94\x84", 28, 6}, /* CJK + emoji */
	};
	clocks c[5] = {{0, 0}};
	size_t i, t;
	int loop;

	for (t = 0; t < 5; t++)
		if (af_writer_thread(w, threads[t].tid, threads[t].name))
			return -1;
	for (i = 0; i < NMETHODS; i++)
		if (af_writer_method(w, (uint32_t)i * 4, methods[i].cls, methods[i].name,
		                     methods[i].sig, methods[i].file))
			return -1;
	if (dalvik) {
		/* Dalvik logs no entry for frames already running: orphan exits */
		if (emit(w, 1, 25, AF_EXIT, &c[0]))
			return -1;
		c[0].wall += 3;
		c[0].cpu += 3;
	}
	for (loop = 0; loop < 40; loop++)
		for (t = 0; t < 5; t++)
			if (loop < threads[t].loops &&
			    call(w, threads[t].tid, threads[t].root, 0, &c[t]))
				return -1;
	return 0;
}

static int write_sample(const char *dir, const char *name, af_writer_options o)
{
	af_writer *w = af_writer_new(&o);
	uint8_t *buf = NULL;
	size_t len = 0;
	char path[4096];
	FILE *f;
	int ok;

	if (!w)
		return -1;
	ok = write_program(w, o.dalvik) == 0 && af_writer_finish(w, &buf, &len, NULL) == 0;
	af_writer_free(w);
	if (!ok)
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	ok = f && fwrite(buf, 1, len, f) == len;
	if (f && fclose(f))
		ok = 0;
	free(buf);
	if (!ok)
		fprintf(stderr, "make_samples: cannot write %s\n", path);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	af_writer_options art = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer_options stream = {.variant = AF_VARIANT_STREAMING,
	                            .clock = AF_WRITER_DUAL};
	af_writer_options dalvik = {.variant = AF_VARIANT_REGULAR, .version = 1,
	                            .clock = AF_WRITER_THREAD_CPU, .dalvik = 1};

	if (argc != 2) {
		fputs("usage: make_samples OUTDIR\n", stderr);
		return 2;
	}
	rng = 20261123u;
	if (write_sample(argv[1], "app.trace", art))
		return 1;
	rng = 20261123u;
	if (write_sample(argv[1], "app-streaming.trace", stream))
		return 1;
	rng = 20261123u;
	if (write_sample(argv[1], "app-dalvik-v1.trace", dalvik))
		return 1;
	return 0;
}
