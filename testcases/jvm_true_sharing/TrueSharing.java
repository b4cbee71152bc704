/*
 * TrueSharing - two Java threads storing into the same field.
 *
 * Both writer threads publish their progress into one Progress object's
 * volatile long "last" (a plain store: "last = n"), the way a status field
 * shared by workers is often written.  It is one datum written by two
 * threads, so its line moves between the cores on every store: true
 * sharing, which no padding can help.  HotSpot compiles a volatile store as
 * the store followed by a fence on the stack ("lock addl $0,(%rsp)"), which
 * waits for the contended store to drain: the timer samples land after the
 * fence, and contend must look through it to the store.
 * "own" gives each writer a Progress object it allocates itself (in its
 * own TLAB, so on a line of its own): the same stores, nothing shared.
 *
 * usage: java TrueSharing [SECONDS] [same|own]   (default 10 s, same)
 * Prints "ready" once both writers run, then the stores per second every
 * second.
 */
public class TrueSharing {
	static final class Progress {
		volatile long last;
	}

	static Progress SHARED = new Progress();
	static volatile boolean stop;
	static final long[] stores = new long[2];

	public static void main(String[] args) throws Exception {
		int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
		boolean own = args.length > 1 && args[1].equals("own");
		Thread[] writers = new Thread[2];

		for (int i = 0; i < writers.length; i++) {
			final int which = i;

			writers[i] = new Thread(() -> {
				Progress p = own ? new Progress() : SHARED;
				long n = 0;

				while (!stop)
					p.last = n++;
				stores[which] = n;
			}, "writer-" + i);
			writers[i].start();
		}
		System.out.println("ready " + (own ? "own" : "same"));
		for (int s = 0; s < seconds; s++)
			Thread.sleep(1000);
		stop = true;
		for (Thread t : writers)
			t.join();
		System.out.println("stores " + (stores[0] + stores[1]));
	}
}
