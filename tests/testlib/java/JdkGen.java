// Writes tests/testlib/jdk_java_streams.cc: JDK values and a few classes of com.example (this
// directory), each written by this JVM's ObjectOutputStream as one stream.
import java.io.*;
import java.math.*;
import java.time.*;
import java.util.*;
import java.util.concurrent.TimeUnit;

public class JdkGen {
  static List<String[]> streams = new ArrayList<>();

  static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (byte b : bytes) sb.append(String.format("%02x", b & 0xff));
    return sb.toString();
  }
  static void add(String name, Object o) throws IOException {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (ObjectOutputStream oos = new ObjectOutputStream(bos)) { oos.writeObject(o); }
    streams.add(new String[] {name, hex(bos.toByteArray())});
  }

  public static void main(String[] args) throws Exception {
    add("Integer", 26);
    add("Long", -5L);
    add("Short", (short) -2);
    add("Byte", (byte) 127);
    add("Double", 2.5);
    add("Float", -0.25f);
    add("Boolean", true);
    add("Character", 'x');
    add("String", "nul\u0000 \u00e9 \u20ac \ud83d\ude00");
    add("LongString", "a".repeat(70000));
    add("BigInteger", new BigInteger("-123456789012345678901234567890"));
    add("SmallBigInteger", BigInteger.valueOf(-300));
    add("BigDecimal", new BigDecimal("-12.345"));
    add("Instant", Instant.ofEpochSecond(1700000000L, 123456789));
    add("Duration", Duration.ofSeconds(90061, 5));
    add("LocalDate", LocalDate.of(2024, 2, 29));
    add("LocalTimeHour", LocalTime.of(7, 0));
    add("LocalTimeMinute", LocalTime.of(7, 30));
    add("LocalTimeSecond", LocalTime.of(7, 30, 15));
    add("LocalTimeNano", LocalTime.of(7, 30, 15, 500));
    add("LocalDateTime", LocalDateTime.of(2024, 12, 31, 23, 59, 58, 1000));
    add("ZonedDateTime", ZonedDateTime.of(LocalDateTime.of(2024, 7, 1, 12, 0), ZoneId.of("Europe/Paris")));
    add("OffsetDateTime", OffsetDateTime.of(LocalDateTime.of(2024, 7, 1, 12, 0), ZoneOffset.ofHoursMinutesSeconds(5, 30, 7)));
    add("OffsetTime", OffsetTime.of(LocalTime.of(1, 2, 3), ZoneOffset.ofHours(-3)));
    add("ZoneOffset", ZoneOffset.UTC);
    add("ZoneRegion", ZoneId.of("America/New_York"));
    add("Year", Year.of(1999));
    add("YearMonth", YearMonth.of(2000, 1));
    add("MonthDay", MonthDay.of(12, 25));
    add("Period", Period.of(1, 2, 3));
    add("Date", new Date(1580382960000L));
    add("UUID", UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
    add("ArrayList", new ArrayList<>(List.of(1, "two", 3L)));
    add("LinkedList", new LinkedList<>(List.of("a", "b")));
    add("ArrayDeque", new ArrayDeque<>(List.of(5, 6)));
    HashMap<String, Integer> hm = new HashMap<>();
    hm.put("k", 1);
    add("HashMap", hm);
    LinkedHashMap<String, Integer> lhm = new LinkedHashMap<>();
    lhm.put("z", 26);
    lhm.put("a", 1);
    add("LinkedHashMap", lhm);
    TreeMap<Integer, String> tm = new TreeMap<>();
    tm.put(2, "b");
    tm.put(1, "a");
    add("TreeMap", tm);
    Hashtable<String, String> ht = new Hashtable<>();
    ht.put("p", "q");
    add("Hashtable", ht);
    add("HashSet", new HashSet<>(List.of(9)));
    LinkedHashSet<String> lhs = new LinkedHashSet<>();
    lhs.add("y");
    lhs.add("x");
    add("LinkedHashSet", lhs);
    add("TreeSet", new TreeSet<>(List.of(3, 1, 2)));
    add("ArraysAsList", Arrays.asList("p", "q"));
    add("UnmodifiableList", Collections.unmodifiableList(new ArrayList<>(List.of(4))));
    add("UnmodifiableMap", Collections.unmodifiableMap(new TreeMap<>(Map.of("m", 1))));
    add("UnmodifiableSet", Collections.unmodifiableSet(new TreeSet<>(Set.of("s"))));
    add("SynchronizedList", Collections.synchronizedList(new ArrayList<>(List.of(8))));
    add("EmptyList", Collections.emptyList());
    add("EmptyMap", Collections.emptyMap());
    add("SingletonList", Collections.singletonList("one"));
    add("SingletonMap", Collections.singletonMap("k", "v"));
    add("ListOf", List.of(1, 2));
    add("MapOf", Map.of("a", 1));
    add("SetOf", Set.of("e"));
    add("Enum", TimeUnit.SECONDS);
    add("IntArray", new int[] {1, -2, 3});
    add("ByteArray", new byte[] {0, 1, (byte) 0xff});
    add("CharArray", new char[] {'h', 'i'});
    add("DoubleArray", new double[] {0.5, Double.NaN});
    add("BooleanArray", new boolean[] {true, false});
    add("StringArray", new String[] {"a", null, "a"});
    add("Class", String.class);
    add("Circle", new com.example.Circle());
    add("Custom", new com.example.Custom());
    add("Big", new com.example.Big());
    add("Ext", new com.example.Ext());
    com.example.Node node = new com.example.Node();
    node.value = 1;
    node.next = node;
    add("Cycle", node);
    add("Proxy", java.lang.reflect.Proxy.newProxyInstance(JdkGen.class.getClassLoader(),
        new Class<?>[] {Runnable.class}, new com.example.Handler()));
    // TC_RESET before the object.
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (ObjectOutputStream oos = new ObjectOutputStream(bos)) { oos.reset(); oos.writeObject("after reset"); }
    streams.add(new String[] {"Reset", hex(bos.toByteArray())});

    PrintStream out = new PrintStream(new FileOutputStream(args[0]));
    out.println("// Generated by tests/testlib/java/JdkGen.java (see tests/testlib/java/README.md); do not edit.");
    out.println("#include \"testlib/java_streams.h\"");
    out.println();
    out.println("namespace ckpt::test {");
    out.println();
    out.println("// " + System.getProperty("java.vendor") + " " + System.getProperty("java.version") + ", one stream per value.");
    out.println("extern const JdkStream kJdkStreams[] = {");
    for (String[] s : streams) {
      out.println("    {\"" + s[0] + "\",");
      String h = s[1];
      if (s[0].equals("LongString")) {
        // The long string: its 70,000 'a's are spelled out by the test, not here.
        int at = h.indexOf("6161616161");
        out.println("     \"" + h.substring(0, at) + "\", 70000},");
        continue;
      }
      out.println("     \"" + h + "\", 0},");
    }
    out.println("};");
    out.println("extern const size_t kJdkStreamCount = " + streams.size() + ";");
    out.println();
    out.println("}  // namespace ckpt::test");
  }
}
