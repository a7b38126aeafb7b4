package org.apache.flink.table.types.logical;
public final class TimestampType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final TimestampKind kind;
  private final int precision;
  public TimestampType(boolean nullable, int precision) { super(nullable, LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE); this.kind = TimestampKind.REGULAR; this.precision = precision; }
}
