/*
 * TypeCheck - HotSpot's secondary super cache (JDK-8180450) in a real JVM.
 *
 * Every class here implements two interfaces, IA and IB.  Each checker
 * thread walks the same objects and tests each one against IA, then IB.
 * HotSpot answers "is this class a subtype of interface X" by searching the
 * class's secondary supers, and remembers the answer in one field of the
 * class's Klass, _secondary_super_cache.  Alternating IA and IB misses that
 * one-entry cache every time and rewrites it, so with two threads the
 * Klass's cache line moves between cores on every check: true sharing on
 * the cache field, false sharing for _secondary_supers beside it.  Four
 * classes make the instanceof sites megamorphic, so that C2 emits the
 * generic subtype check instead of a compare with one profiled class.
 *
 * usage: java TypeCheck [THREADS] [SECONDS]   (default 2 threads, 10 s)
 * Prints the checks per second every second, then the total; exits 1 if
 * a check answered wrong.
 */
public class TypeCheck {
	interface IA { }
	interface IB { }
	static final class C0 implements IA, IB { }
	static final class C1 implements IA, IB { }
	static final class C2 implements IA, IB { }
	static final class C3 implements IA, IB { }

	static final Object[] OBJECTS = new Object[64];
	static volatile boolean stop;

	static final class Checker extends Thread {
		volatile long checks;
		volatile boolean wrong;

		Checker(int i) {
			super("checker-" + i);
		}

		/* Both tests always hold: the count says the JIT kept them. */
		static int check(Object[] objects) {
			int hits = 0;
			for (Object o : objects) {
				if (o instanceof IA)
					hits++;
				if (o instanceof IB)
					hits++;
			}
			return hits;
		}

		@Override
		public void run() {
			while (!stop) {
				if (check(OBJECTS) != 2 * OBJECTS.length)
					wrong = true;
				checks += 2 * OBJECTS.length;
			}
		}
	}

	static long total(Checker[] checkers) {
		long sum = 0;
		for (Checker c : checkers)
			sum += c.checks;
		return sum;
	}

	public static void main(String[] args) throws InterruptedException {
		int nthreads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
		double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
		Checker[] checkers = new Checker[nthreads];
		long start = System.nanoTime(), last = 0, lastTime = start;
		boolean wrong = false;

		for (int i = 0; i < OBJECTS.length; i++) {
			switch (i % 4) {
			case 0: OBJECTS[i] = new C0(); break;
			case 1: OBJECTS[i] = new C1(); break;
			case 2: OBJECTS[i] = new C2(); break;
			default: OBJECTS[i] = new C3(); break;
			}
		}
		for (int i = 0; i < nthreads; i++) {
			checkers[i] = new Checker(i);
			checkers[i].start();
		}
		while (System.nanoTime() - start < (long)(seconds * 1e9)) {
			Thread.sleep(1000);
			long now = System.nanoTime(), sum = total(checkers);
			System.out.printf("%5.1f s: %.0f checks/s%n", (now - start) / 1e9,
					  (sum - last) / ((now - lastTime) / 1e9));
			last = sum;
			lastTime = now;
		}
		stop = true;
		for (Checker c : checkers) {
			c.join();
			wrong |= c.wrong;
		}
		System.out.printf("%d threads: %d checks in %.2f s%n", nthreads, total(checkers),
				  (System.nanoTime() - start) / 1e9);
		if (wrong) {
			System.err.println("a type check answered wrong");
			System.exit(1);
		}
	}
}
