package org.apache.flink.table.types.logical;
public final class TimeType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int precision;
  public TimeType(boolean nullable, int precision) { super(nullable, LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE); this.precision = precision; }
}
