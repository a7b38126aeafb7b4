package org.apache.flink.table.types.logical;
public final class YearMonthIntervalType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public enum YearMonthResolution { YEAR, YEAR_TO_MONTH, MONTH }
  private final YearMonthResolution resolution;
  private final int yearPrecision;
  public YearMonthIntervalType(boolean nullable) { super(nullable, LogicalTypeRoot.INTERVAL_YEAR_MONTH); resolution = YearMonthResolution.YEAR_TO_MONTH; yearPrecision = 2; }
}
