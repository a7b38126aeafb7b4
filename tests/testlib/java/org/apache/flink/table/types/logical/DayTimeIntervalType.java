package org.apache.flink.table.types.logical;
public final class DayTimeIntervalType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public enum DayTimeResolution { DAY, DAY_TO_HOUR, DAY_TO_MINUTE, DAY_TO_SECOND, HOUR, HOUR_TO_MINUTE, HOUR_TO_SECOND, MINUTE, MINUTE_TO_SECOND, SECOND }
  private final DayTimeResolution resolution;
  private final int dayPrecision;
  private final int fractionalPrecision;
  public DayTimeIntervalType(boolean nullable) { super(nullable, LogicalTypeRoot.INTERVAL_DAY_TIME); resolution = DayTimeResolution.DAY_TO_SECOND; dayPrecision = 2; fractionalPrecision = 3; }
}
