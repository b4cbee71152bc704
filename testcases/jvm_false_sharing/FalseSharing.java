/*
 * FalseSharing - false sharing between two fields of one Java object.
 *
 * One Counters object has two adjacent volatile longs, a and b.  Thread
 * writer-0 increments only a, writer-1 only b: no datum is shared, yet the
 * two fields sit 8 bytes apart (offsets 16 and 24 with compressed class
 * pointers), so unless the 32-byte object straddles a line boundary they
 * share one cache line, which then moves between the two cores on every
 * store.  "padded" puts seven longs between them (a 64-byte gap) for the
 * contrast.  The object is reachable from the static field COUNTERS, that
 * is from FalseSharing's mirror, which is how a test finds its address
 * (tests/test_hotspot.c does the same with HotspotProbe.PAIR).
 *
 * Where the object lands is decided by what the JVM allocated before it,
 * which depends on its environment (the working directory's length, for
 * one): a placement that straddles is then the same in every run.  SKEW
 * allocates a long[SKEW] just before it, moving it by 16 + 8 * SKEW bytes,
 * so that a test's retries try other placements.  "flanked" needs no
 * retry: b sits between a and c (offsets 16, 24, 32), writer-0 writes b
 * and writer-1 writes a and c, so whichever boundary the 24 bytes cross,
 * b shares a line with a field the other thread writes.
 *
 * usage: java FalseSharing [SECONDS] [padded|adjacent|flanked] [SKEW]
 *        (default 10 s, adjacent, no skew)
 * Prints "ready" once both writers run, the increments per second every
 * second, then the total.
 */
public class FalseSharing {
	static class Counters {
		volatile long a;
		volatile long b;

		void add(int which) {
			if (which == 0)
				a++;
			else
				b++;
		}

		long total() {
			return a + b;
		}
	}

	static final class Flanked extends Counters {
		volatile long c;

		@Override
		void add(int which) {
			if (which == 0) {
				b++;
			} else {
				a++;
				c++;
			}
		}

		@Override
		long total() {
			return a + b + c;
		}
	}

	static final class PaddedCounters extends Counters {
		volatile long pa;
		long p1, p2, p3, p4, p5, p6, p7;
		volatile long pb;

		@Override
		void add(int which) {
			if (which == 0)
				pa++;
			else
				pb++;
		}

		@Override
		long total() {
			return pa + pb;
		}
	}

	static Counters COUNTERS;
	static long[] SKEW;
	static volatile boolean stop;

	public static void main(String[] args) throws Exception {
		int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
		String mode = args.length > 1 ? args[1] : "adjacent";
		boolean padded = mode.equals("padded");
		Thread[] writers = new Thread[2];

		int skew = args.length > 2 ? Integer.parseInt(args[2]) : 0;

		if (skew > 0)
			SKEW = new long[skew];
		COUNTERS = padded ? new PaddedCounters() :
			   mode.equals("flanked") ? new Flanked() : new Counters();
		for (int i = 0; i < writers.length; i++) {
			final int which = i;

			writers[i] = new Thread(() -> {
				Counters c = COUNTERS;

				while (!stop)
					c.add(which);
			}, "writer-" + i);
			writers[i].start();
		}
		System.out.println("ready " + mode);
		long last = 0;
		for (int s = 0; s < seconds; s++) {
			Thread.sleep(1000);
			long now = COUNTERS.total();
			System.out.println((now - last) + " increments/s");
			last = now;
		}
		stop = true;
		for (Thread t : writers)
			t.join();
		System.out.println("total " + COUNTERS.total());
	}
}
