package org.apache.flink.table.types.logical;
public final class IntType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public IntType(boolean nullable) { super(nullable, LogicalTypeRoot.INTEGER); }
}
