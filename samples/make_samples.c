/*
 * make_samples.c - writes the bundled sample traces with the project's own
 * writer: a made-up Android app starting up, recorded by ART (regular and
 * streaming) and by an old Dalvik (data version 1, thread-cpu clock); the
 * same app after a change (app-after.trace: Json.parse three times slower,
 * LayoutInflater.inflate twice as fast, Tracker.logEvent no longer called),
 * for differential graphs; and a release build of it obfuscated by R8
 * (app-obfuscated.trace) with its mapping file (app-mapping.txt).
 *
 *   make_samples OUTDIR
 *
 * The program is fixed and the random choices come from a seeded generator,
 * so the bytes are the same on every run (a test checks samples/ is current).
 * The changed app draws the same random numbers as the original, so the
 * call paths it shares with it differ only by the changes.
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

/* The methods app-after.trace changes ('B' Json.parse, 'w' inflate, 'p'
 * Tracker.logEvent), as indices into methods. */
#define M_PARSE 27
#define M_INFLATE 22
#define M_LOG_EVENT 15

/* What a program run changes: self times in percent of the original's, and
 * the method no longer called (-1: none). */
typedef struct change {
	int percent[NMETHODS];
	int dropped;
} change;

static const change *changes;

/* R8's renaming of the release build: classes (dotted), then methods of a
 * class; names not listed are kept (framework and java.* classes, and
 * methods overriding the platform's). */
static const struct {
	const char *cls, *obf;
} obf_classes[] = {
	{"com.example.shop.ui.CartViewModel$load$1", "o.a"},
	{"com.example.shop.data.ProductRepository", "o.b"},
	{"com.example.shop.analytics.Tracker", "o.c"},
	{"com.example.shop.data.Json", "o.d"},
	{"kotlinx.coroutines.BuildersKt", "e.a"},
	{"kotlinx.coroutines.CoroutineScope", "e.b"},
	{"kotlinx.coroutines.Job", "e.c"},
};

static const struct {
	const char *cls, *name, *obf;
} obf_methods[] = {
	{"com.example.shop.data.ProductRepository", "loadCart", "a"},
	{"com.example.shop.analytics.Tracker", "logEvent", "a"},
	{"com.example.shop.data.Json", "parse", "a"},
	{"kotlinx.coroutines.BuildersKt", "launch", "b"},
};

#define NOBF_CLASSES (sizeof obf_classes / sizeof obf_classes[0])
#define NOBF_METHODS (sizeof obf_methods / sizeof obf_methods[0])

static int obfuscate; /* write the release build's names */

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

/* Records nothing when `w` is NULL: a call the changed app drops still
 * draws its random numbers. */
static int emit(af_writer *w, uint32_t tid, int m, int action, clocks *c)
{
	if (!w)
		return 0;
	return af_writer_record(w, tid, (uint32_t)m * 4, action, c->cpu, c->wall);
}

/* Spends method `m`'s self time: wall always, cpu unless blocked. */
static void spend(int m, clocks *c)
{
	const method *me = &methods[m];
	uint32_t us = (uint32_t)me->self_us / 2 + next_random() % (uint32_t)(me->self_us + 1);

	if (changes)
		us = us * (uint32_t)changes->percent[m] / 100;
	c->wall += us;
	c->cpu += us * (uint32_t)(100 - me->off_cpu) / 100;
}

/* Calls method `m` at `depth`; recursive methods stop at a small depth. */
static int call(af_writer *w, uint32_t tid, int m, int depth, clocks *c)
{
	const char *k;
	clocks dropped;

	if (changes && m == changes->dropped && w) {
		dropped = *c;
		return call(NULL, tid, m, depth, &dropped);
	}
	if (emit(w, tid, m, AF_ENTER, c))
		return -1;
	spend(m, c);
	for (k = methods[m].calls; *k; k++) {
		int callee = index_of(*k);
		if (depth > 14 || (callee == m && depth > 6) || next_random() % 8 == 0)
			continue;
		if (call(w, tid, callee, depth + 1, c))
			return -1;
		spend(m, c);
	}
	return emit(w, tid, m, AF_EXIT, c);
}

/* The release build's name of class `cls` (dotted). */
static const char *obf_class(const char *cls)
{
	size_t i;

	for (i = 0; obfuscate && i < NOBF_CLASSES; i++)
		if (strcmp(obf_classes[i].cls, cls) == 0)
			return obf_classes[i].obf;
	return cls;
}

static const char *obf_method(const char *cls, const char *name)
{
	size_t i;

	for (i = 0; obfuscate && i < NOBF_METHODS; i++)
		if (strcmp(obf_methods[i].cls, cls) == 0 && strcmp(obf_methods[i].name, name) == 0)
			return obf_methods[i].obf;
	return name;
}

/* Descriptor `sig` with the class names it holds renamed, into `out`. */
static const char *obf_descriptor(const char *sig, char *out, size_t n)
{
	size_t o = 0;

	while (*sig && o + 1 < n) {
		const char *end;
		char cls[256];
		size_t len, k;
		const char *to;

		if (*sig != 'L' || !(end = strchr(sig, ';')) || (len = (size_t)(end - sig - 1)) >= sizeof cls) {
			out[o++] = *sig++;
			continue;
		}
		for (k = 0; k < len; k++)
			cls[k] = sig[1 + k] == '/' ? '.' : sig[1 + k];
		cls[len] = '\0';
		to = obf_class(cls);
		o += (size_t)snprintf(out + o, n - o, "L");
		for (k = 0; to[k] && o + 1 < n; k++)
			out[o++] = to[k] == '.' ? '/' : to[k];
		if (o + 1 < n)
			out[o++] = ';';
		sig = end + 1;
	}
	out[o < n ? o : n - 1] = '\0';
	return out;
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
	for (i = 0; i < NMETHODS; i++) {
		char sig[512];
		if (af_writer_method(w, (uint32_t)i * 4, obf_class(methods[i].cls),
		                     obf_method(methods[i].cls, methods[i].name),
		                     obf_descriptor(methods[i].sig, sig, sizeof sig),
		                     obfuscate ? "SourceFile" : methods[i].file))
			return -1;
	}
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

/* The release build's mapping file, as R8 writes it (the renaming of
 * obf_classes and obf_methods, with line ranges). */
static const char mapping[] =
	"# compiler: R8\n"
	"# compiler_version: 8.5.35\n"
	"# min_api: 24\n"
	"# pg_map_id: 5f3a1c2\n"
	"# common_typos_disable\n"
	"com.example.shop.MainActivity -> com.example.shop.MainActivity:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"MainActivity.kt\"}\n"
	"    1:1:void <init>():14:14 -> <init>\n"
	"    1:12:void onCreate(android.os.Bundle):18:29 -> onCreate\n"
	"com.example.shop.analytics.Tracker -> o.c:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"Tracker.kt\"}\n"
	"    java.util.Map pending -> a\n"
	"    1:9:void logEvent(java.lang.String,java.util.Map):21:29 -> a\n"
	"com.example.shop.data.Json -> o.d:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"Json.kt\"}\n"
	"    1:30:java.lang.Object parse(java.lang.String):8:37 -> a\n"
	"com.example.shop.data.ProductRepository -> o.b:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"ProductRepository.kt\"}\n"
	"    android.content.Context context -> a\n"
	"    1:22:void <init>(android.content.Context):11:32 -> <init>\n"
	"    1:16:java.util.List loadCart():40:55 -> a\n"
	"com.example.shop.ui.CartViewModel$load$1 -> o.a:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"CartViewModel.kt\"}\n"
	"    1:14:java.lang.Object invokeSuspend(java.lang.Object):31:44 -> invokeSuspend\n"
	"kotlinx.coroutines.BuildersKt -> e.a:\n"
	"    kotlinx.coroutines.Job launch(kotlinx.coroutines.CoroutineScope) -> b\n"
	"kotlinx.coroutines.CoroutineScope -> e.b:\n"
	"kotlinx.coroutines.Job -> e.c:\n";

static int write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	ok = f && fputs(text, f) >= 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok)
		fprintf(stderr, "make_samples: cannot write %s\n", path);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static change after;
	size_t i;

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

	for (i = 0; i < NMETHODS; i++)
		after.percent[i] = 100;
	after.percent[M_PARSE] = 300;
	after.percent[M_INFLATE] = 50;
	after.dropped = M_LOG_EVENT;
	changes = &after;
	rng = 20261123u;
	if (write_sample(argv[1], "app-after.trace", art))
		return 1;
	changes = NULL;

	obfuscate = 1;
	rng = 20261123u;
	if (write_sample(argv[1], "app-obfuscated.trace", art) ||
	    write_text(argv[1], "app-mapping.txt", mapping))
		return 1;
	return 0;
}
