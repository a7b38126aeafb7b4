package org.apache.flink.table.types.logical;
public final class BigIntType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public BigIntType(boolean nullable) { super(nullable, LogicalTypeRoot.BIGINT); }
}
