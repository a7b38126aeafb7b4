package org.apache.flink.table.types.logical;
public final class DoubleType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public DoubleType(boolean nullable) { super(nullable, LogicalTypeRoot.DOUBLE); }
}
