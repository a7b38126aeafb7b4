package org.apache.flink.table.types.logical;
public final class FloatType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public FloatType(boolean nullable) { super(nullable, LogicalTypeRoot.FLOAT); }
}
