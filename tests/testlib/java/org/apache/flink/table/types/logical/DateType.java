package org.apache.flink.table.types.logical;
public final class DateType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public DateType(boolean nullable) { super(nullable, LogicalTypeRoot.DATE); }
}
