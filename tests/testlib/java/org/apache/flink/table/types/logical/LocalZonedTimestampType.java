package org.apache.flink.table.types.logical;
public final class LocalZonedTimestampType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final TimestampKind kind;
  private final int precision;
  public LocalZonedTimestampType(boolean nullable, int precision) { super(nullable, LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE); this.kind = TimestampKind.REGULAR; this.precision = precision; }
}
