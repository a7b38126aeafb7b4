package org.apache.flink.table.types.logical;
public final class BooleanType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public BooleanType(boolean nullable) { super(nullable, LogicalTypeRoot.BOOLEAN); }
}
